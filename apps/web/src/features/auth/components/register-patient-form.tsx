import { zodResolver } from '@hookform/resolvers/zod';
import type { PublicConfig } from '@mi/contracts/auth';
import { emailSchema, passwordSchema } from '@mi/contracts/rules';
import { useQueryClient } from '@tanstack/react-query';
import { Loader2 } from 'lucide-react';
import { useId, useRef } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { Link, useLocation, useNavigate } from 'react-router';
import { z } from 'zod';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { PasswordInput } from '@/components/ui/password-input';
import { toast, toastError } from '@/hooks/use-toast';
import { isApiError } from '@/lib/api-client';
import { meQueryOptions } from '../api/get-me';
import { useRegister } from '../api/register';
import { toastCaptchaError } from '../utils/captcha-toast';
import { carrySearch } from '../utils/post-sign-in-target';
import { CaptchaField, type CaptchaHandle } from './captcha-field';
import { CaptchaNotice } from './captcha-notice';
import { FormRow } from './form-row';
import { TermsCheckbox } from './terms-checkbox';

/** Spec §5 patient registration rules; email and password rules are the server's (contracts/rules). */
const registerPatientSchema = z
  .object({
    firstName: z.string().trim().min(1, 'First name is required').max(100),
    lastName: z.string().trim().min(1, 'Last name is required').max(100),
    email: emailSchema,
    mobilePhone: z.string().trim().min(1, 'Mobile phone is required').max(40),
    password: passwordSchema,
    confirmPassword: z.string(),
    acceptTerms: z.boolean().refine((v) => v, 'You must accept the terms and conditions'),
  })
  .refine((v) => v.password === v.confirmPassword, {
    path: ['confirmPassword'],
    message: 'Passwords do not match',
    // Check the match even while other fields are still invalid.
    when: (payload) => {
      const v = payload.value as { password?: unknown; confirmPassword?: unknown } | undefined;
      return typeof v?.password === 'string' && typeof v.confirmPassword === 'string';
    },
  });
type RegisterPatientValues = z.input<typeof registerPatientSchema>;

export function RegisterPatientForm({ config }: { config: PublicConfig | undefined }) {
  const id = useId();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const registerMutation = useRegister();
  const captchaRef = useRef<CaptchaHandle>(null);
  const {
    register,
    control,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<RegisterPatientValues>({
    resolver: zodResolver(registerPatientSchema),
    defaultValues: {
      firstName: '',
      lastName: '',
      email: '',
      mobilePhone: '',
      password: '',
      confirmPassword: '',
      acceptTerms: false,
    },
  });

  const onSubmit = async (values: RegisterPatientValues) => {
    const captcha = (await captchaRef.current?.getToken()) ?? null;
    if (!captcha) {
      toastCaptchaError();
      return;
    }
    try {
      await registerMutation.mutateAsync({
        email: values.email.trim(),
        password: values.password,
        name: `${values.firstName.trim()} ${values.lastName.trim()}`,
        role: 'patient',
        mobilePhone: values.mobilePhone.trim(),
        acceptTerms: true,
        captcha,
      });
    } catch (err) {
      captchaRef.current?.reset();
      if (isApiError(err, 'CAPTCHA_FAILED')) toastCaptchaError();
      else
        toastError(
          isApiError(err) && err.serverMessage ? err.serverMessage : 'Registration failed. Please try again.',
        );
      return;
    }
    toast({ title: 'Registration successful' });
    // The server signed the new user in; reading /api/auth/me switches the app to signed-in.
    const user = await queryClient.fetchQuery({ ...meQueryOptions(), staleTime: 0 }).catch(() => null);
    if (!user) navigate(`/login${carrySearch(location.search)}`);
  };

  const field = (name: keyof RegisterPatientValues) => ({
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
          />
        )}
      />

      <CaptchaField captcha={config?.captcha} action="register" ref={captchaRef} />

      <Button type="submit" className="w-full" disabled={isSubmitting} aria-busy={isSubmitting || undefined}>
        {isSubmitting && <Loader2 className="animate-spin" aria-hidden="true" />}
        Register
      </Button>

      {config && <CaptchaNotice provider={config.captcha.provider} />}

      <p className="text-center text-sm">
        Already have an account?{' '}
        <Link
          to={`/login${carrySearch(location.search)}`}
          className="font-medium text-primary hover:underline"
        >
          Back to Login
        </Link>
      </p>
    </form>
  );
}
