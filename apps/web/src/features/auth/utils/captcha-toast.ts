import { toast } from '@/hooks/use-toast';

/** Spec §5: shown when no captcha token exists or the server rejects it. */
export function toastCaptchaError(): void {
  toast({
    title: 'reCAPTCHA Error',
    description: 'reCAPTCHA verification failed. Please try again.',
    variant: 'destructive',
  });
}
