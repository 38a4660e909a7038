import { toast } from '@/hooks/use-toast';

/** The 'reCAPTCHA Error' toast: shown when no captcha token exists or the server rejects it. */
export function toastCaptchaError(): void {
  toast({
    title: 'reCAPTCHA Error',
    description: 'reCAPTCHA verification failed. Please try again.',
    variant: 'destructive',
  });
}
