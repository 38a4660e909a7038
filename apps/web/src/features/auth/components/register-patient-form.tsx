import { zodResolver } from '@hookform/resolvers/zod';
import { registerFieldsSchema, registrationFormFieldsSchema, type PublicConfig } from '@mi/contracts/auth';
import { useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { useLocation, useNavigate } from 'react-router';
import { z } from 'zod';
import { FormRow } from '@/components/form-row';
import { Input } from '@/components/ui/input';
import { PasswordInput } from '@/components/ui/password-input';
import { paths, withQuery } from '@/config/paths';
import { meQueryOptions } from '../api/get-me';
import { linkShareFromSearch } from '../api/link-share';
import { useRegistration } from '../hooks/use-registration';
import { withPasswordConfirmation } from '../utils/password-confirmation';
import { carrySearch, handedEmail } from '../utils/post-sign-in-target';
import { RegistrationSubmit } from './registration-submit';
import { TermsCheckbox } from './terms-checkbox';

/** Patient registration rules: the server's payload rules plus the form's own fields. */
const registerPatientSchema = withPasswordConfirmation(
  registerFieldsSchema.pick({ email: true, password: true }).extend({
    ...registrationFormFieldsSchema.pick({
      firstName: true,
      lastName: true,
      mobilePhone: true,
      confirmPassword: true,
    }).shape,
    // The box starts unticked; the payload accepts only `true`.
    acceptTerms: z.boolean().pipe(registerFieldsSchema.shape.acceptTerms),
  }),
);
type RegisterPatientInput = z.input<typeof registerPatientSchema>;
type RegisterPatientValues = z.output<typeof registerPatientSchema>;

export function RegisterPatientForm({ config }: { config: PublicConfig | undefined }) {
  const id = useId();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { captchaRef, register: sendRegistration } = useRegistration(config);
  const {
    register,
    control,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<RegisterPatientInput, unknown, RegisterPatientValues>({
    resolver: zodResolver(registerPatientSchema),
    defaultValues: {
      firstName: '',
      lastName: '',
      email: handedEmail(location.state),
      mobilePhone: '',
      password: '',
      confirmPassword: '',
      acceptTerms: false,
    },
  });

  const onSubmit = async (values: RegisterPatientValues) => {
    const registered = await sendRegistration({
      email: values.email,
      password: values.password,
      name: `${values.firstName} ${values.lastName}`,
      role: 'patient',
      mobilePhone: values.mobilePhone,
      acceptTerms: values.acceptTerms,
    });
    if (!registered) return;
    await linkShareFromSearch(location.search, registered.data.id);
    // The server signed the new user in; reading /api/auth/me switches the app to signed-in.
    const user = await queryClient.fetchQuery({ ...meQueryOptions(), staleTime: 0 }).catch(() => null);
    if (!user) navigate(withQuery(paths.login, carrySearch(location.search)));
  };

  const field = (name: keyof RegisterPatientInput) => ({
    id: `${id}-${name}`,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `${id}-${name}-error` : undefined,
  });

  return (
    <form
      noValidate
      onSubmit={handleSubmit(onSubmit)}
      className="grid gap-4"
      aria-label="Patient registration"
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
      <FormRow label="Mobile Phone" name="mobilePhone" id={id} error={errors.mobilePhone?.message}>
        <Input
          type="tel"
          inputMode="tel"
          autoComplete="tel"
          {...field('mobilePhone')}
          {...register('mobilePhone')}
        />
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
        loginHref={withQuery(paths.login, carrySearch(location.search))}
      />
    </form>
  );
}
