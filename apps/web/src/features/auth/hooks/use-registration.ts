import type { LoginResponse, PublicConfig, RegisterBody } from '@mi/contracts/auth';
import { useRef } from 'react';
import { toast, toastError } from '@/hooks/use-toast';
import { isApiError } from '@/lib/api-client';
import { useRegister } from '../api/register';
import type { CaptchaHandle } from '../components/captcha-field';
import { toastCaptchaError } from '../utils/captcha-toast';

/**
 * What both registration forms (patient and professional) do on submit: solve the captcha, send the
 * registration, and tell the user how it went. `register` resolves to the server's answer, or to
 * null when it failed (the user has been told, and the captcha is ready for another try).
 */
export function useRegistration(config: PublicConfig | undefined) {
  const mutation = useRegister();
  const captchaRef = useRef<CaptchaHandle>(null);

  async function register(body: Omit<RegisterBody, 'captcha'>): Promise<LoginResponse | null> {
    const captcha = (await captchaRef.current?.getToken()) ?? null;
    if (!captcha) {
      toastCaptchaError(config?.captcha.provider);
      return null;
    }
    try {
      const registered = await mutation.mutateAsync({ ...body, captcha });
      toast({ title: 'Registration successful' });
      return registered;
    } catch (err) {
      captchaRef.current?.reset();
      if (isApiError(err, 'CAPTCHA_FAILED')) toastCaptchaError(config?.captcha.provider);
      else
        toastError(
          isApiError(err) && err.serverMessage ? err.serverMessage : 'Registration failed. Please try again.',
        );
      return null;
    }
  }

  return { captchaRef, register };
}
