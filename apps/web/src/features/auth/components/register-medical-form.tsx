import { zodResolver } from '@hookform/resolvers/zod';
import {
  licenseSchema,
  registerFieldsSchema,
  registrationFormFieldsSchema,
  specialtySchema,
  type PublicConfig,
} from '@mi/contracts/auth';
import { SPECIALTIES } from '@mi/contracts/rules';
import { useId } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useLocation, useNavigate } from 'react-router';
import { z } from 'zod';
import { FormRow } from '@/components/form-row';
import { Input } from '@/components/ui/input';
import { NativeSelect } from '@/components/ui/native-select';
import { PasswordInput } from '@/components/ui/password-input';
import { paths } from '@/config/paths';
import { useRegistration } from '../hooks/use-registration';
import { withPasswordConfirmation } from '../utils/password-confirmation';
import { handedEmail } from '../utils/post-sign-in-target';
import { RegistrationSubmit } from './registration-submit';
import { TermsCheckbox } from './terms-checkbox';

/**
 * Professional registration rules: the server's payload rules (licence, specialty, terms) plus the
 * form's own fields, where phone, hospital and position are required.
 */
const registerMedicalSchema = withPasswordConfirmation(
  registerFieldsSchema.pick({ email: true, password: true }).extend({
    ...registrationFormFieldsSchema.pick({
      firstName: true,
      lastName: true,
      phone: true,
      confirmPassword: true,
      hospital: true,
      position: true,
    }).shape,
    licenseNumber: licenseSchema.shape.number,
    licenseState: licenseSchema.shape.state,
    licenseExpiryDate: licenseSchema.shape.expiryDate,
    // The select starts on its empty 'Select a specialty' option.
    specialty: z.string().pipe(specialtySchema),
    // The box starts unticked; the payload accepts only `true`.
    acceptTerms: z.boolean().pipe(registerFieldsSchema.shape.acceptTerms),
  }),
);
type RegisterMedicalInput = z.input<typeof registerMedicalSchema>;
type RegisterMedicalValues = z.output<typeof registerMedicalSchema>;

/**
 * /register/medical: the professional's application. The account is stored as a
 * professional with the licence and waits for an admin; the user goes to /registration-pending.
 */
export function RegisterMedicalForm({ config }: { config: PublicConfig | undefined }) {
  const id = useId();
  const navigate = useNavigate();
  const location = useLocation();
  // An emailed provider invitation links here with its single-use token and the invited email.
  const invitation = new URLSearchParams(location.search);
  const referral = invitation.get('referral');
  const { captchaRef, register: sendRegistration } = useRegistration(config);
  const {
    register,
    control,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<RegisterMedicalInput, unknown, RegisterMedicalValues>({
    resolver: zodResolver(registerMedicalSchema),
    defaultValues: {
      firstName: '',
      lastName: '',
      email: (referral && invitation.get('email')) || handedEmail(location.state),
      phone: '',
      password: '',
      confirmPassword: '',
      licenseNumber: '',
      licenseState: '',
      licenseExpiryDate: '',
      specialty: '',
      hospital: '',
      position: '',
      acceptTerms: false,
    },
  });

  const onSubmit = async (values: RegisterMedicalValues) => {
    const registered = await sendRegistration({
      email: values.email,
      password: values.password,
      name: `${values.firstName} ${values.lastName}`,
      role: 'professional',
      mobilePhone: values.phone,
      license: {
        number: values.licenseNumber,
        state: values.licenseState,
        expiryDate: values.licenseExpiryDate,
      },
      specialty: values.specialty,
      hospital: values.hospital,
      position: values.position,
      acceptTerms: values.acceptTerms,
      ...(referral ? { referral } : {}),
    });
    if (registered) navigate(paths.registrationPending);
  };

  const field = (name: keyof RegisterMedicalInput) => ({
    id: `${id}-${name}`,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `${id}-${name}-error` : undefined,
  });

  return (
    <form
      noValidate
      onSubmit={handleSubmit(onSubmit)}
      className="grid gap-4"
      aria-label="Medical professional registration"
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <FormRow label="First Name" name="firstName" id={id} error={errors.firstName?.message}>
          <Input autoComplete="given-name" {...field('firstName')} {...register('firstName')} />
        </FormRow>
        <FormRow label="Last Name" name="lastName" id={id} error={errors.lastName?.message}>
          <Input autoComplete="family-name" {...field('lastName')} {...register('lastName')} />
        </FormRow>
      </div>
      <FormRow label="Email" name="email" id={id} error={errors.email?.message}>
        <Input
          type="email"
          inputMode="email"
          autoComplete="email"
          {...field('email')}
          {...register('email')}
        />
      </FormRow>
      <FormRow label="Phone" name="phone" id={id} error={errors.phone?.message}>
        <Input type="tel" inputMode="tel" autoComplete="tel" {...field('phone')} {...register('phone')} />
      </FormRow>
      <FormRow label="Password" name="password" id={id} error={errors.password?.message}>
        <PasswordInput autoComplete="new-password" {...field('password')} {...register('password')} />
      </FormRow>
      <FormRow
        label="Confirm Password"
        name="confirmPassword"
        id={id}
        error={errors.confirmPassword?.message}
      >
        <PasswordInput
          autoComplete="new-password"
          {...field('confirmPassword')}
          {...register('confirmPassword')}
        />
      </FormRow>

      <fieldset className="grid gap-4 rounded-md border p-4">
        <legend className="px-1 text-sm font-semibold">Medical License</legend>
        <div className="grid gap-4 sm:grid-cols-2">
          <FormRow label="License Number" name="licenseNumber" id={id} error={errors.licenseNumber?.message}>
            <Input {...field('licenseNumber')} {...register('licenseNumber')} />
          </FormRow>
          <FormRow label="License State" name="licenseState" id={id} error={errors.licenseState?.message}>
            <Input autoComplete="address-level1" {...field('licenseState')} {...register('licenseState')} />
          </FormRow>
        </div>
        <FormRow
          label="License Expiry Date"
          name="licenseExpiryDate"
          id={id}
          error={errors.licenseExpiryDate?.message}
        >
          <Input type="date" {...field('licenseExpiryDate')} {...register('licenseExpiryDate')} />
        </FormRow>
      </fieldset>

      <FormRow label="Specialty" name="specialty" id={id} error={errors.specialty?.message}>
        <NativeSelect {...field('specialty')} {...register('specialty')}>
          <option value="">Select a specialty</option>
          {SPECIALTIES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </NativeSelect>
      </FormRow>
      <FormRow label="Hospital/Clinic Affiliation" name="hospital" id={id} error={errors.hospital?.message}>
        <Input autoComplete="organization" {...field('hospital')} {...register('hospital')} />
      </FormRow>
      <FormRow label="Position" name="position" id={id} error={errors.position?.message}>
        <Input autoComplete="organization-title" {...field('position')} {...register('position')} />
      </FormRow>

      <Controller
        control={control}
        name="acceptTerms"
        render={({ field: { value, onChange, onBlur, ref } }) => (
          <TermsCheckbox
            id={id}
            error={errors.acceptTerms?.message}
            value={value}
            onChange={onChange}
            onBlur={onBlur}
            ref={ref}
            termsUrl={config?.termsUrl}
          />
        )}
      />

      <RegistrationSubmit
        config={config}
        captchaRef={captchaRef}
        submitting={isSubmitting}
        loginHref={paths.login}
      />
    </form>
  );
}
