// @vitest-environment jsdom
import type { PublicConfig } from '@mi/contracts/auth';
import { QueryClientProvider } from '@tanstack/react-query';
import { act, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { useRegistration } from '../src/features/auth/hooks/use-registration';
import { createQueryClient } from '../src/lib/query-client';
import { watchToasts } from './toasts';
import { answer, stubFetch } from './network';

/**
 * What both registration forms do on submit (features/auth/hooks/use-registration.ts): the captcha's
 * solution goes with the registration, and every outcome is told to the user. The server is played by
 * a stubbed fetch; the captcha widget (driven in the browser tests) by the handle the forms hold.
 */

const config = {
  captcha: { provider: 'altcha', challengeUrl: '/api/auth/captcha' },
} as unknown as PublicConfig;
const body = {
  email: 'pat@example.com',
  password: 'Str0ng!Passw0rd',
  name: 'Pat Smith',
  role: 'patient' as const,
  mobilePhone: '+15550100',
  acceptTerms: true as const,
};
const fetchMock = stubFetch();

function setup(token: string | null) {
  const client = createQueryClient();
  client.setDefaultOptions({ mutations: { retry: false } });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  const toasts = watchToasts();
  act(() => toasts.clear());
  const hook = renderHook(() => useRegistration(config), { wrapper });
  const captcha = { getToken: vi.fn(async () => token), reset: vi.fn() };
  hook.result.current.captchaRef.current = captcha;
  return { register: hook.result.current.register, captcha, toasts };
}
const sentBodies = () => fetchMock.mock.calls.map(([, init]) => JSON.parse(String(init?.body)) as unknown);

describe('useRegistration', () => {
  it("sends the registration with the captcha's solution and says it worked", async () => {
    const registered = { message: 'ok', data: { id: 'u1' } };
    fetchMock.mockResolvedValueOnce(answer(201, registered));
    const { register, toasts } = setup('solution-1');
    let result: unknown;
    await act(async () => {
      result = await register(body);
    });
    expect(result).toEqual(registered);
    expect(String(fetchMock.mock.calls[0]?.[0])).toBe('/api/auth/register');
    expect(sentBodies()).toEqual([{ ...body, captcha: 'solution-1' }]);
    expect(toasts.shown).toEqual({
      title: 'Registration successful',
      description: undefined,
      variant: undefined,
    });
  });

  it('sends nothing without a captcha solution, and says the captcha failed', async () => {
    const { register, toasts } = setup(null);
    let result: unknown = 'unset';
    await act(async () => {
      result = await register(body);
    });
    expect(result).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
    expect(toasts.shown).toEqual({
      title: 'Captcha Error',
      description: 'Captcha verification failed. Please try again.',
      variant: 'destructive',
    });
  });

  it('resets the captcha when the server refuses its solution', async () => {
    fetchMock.mockResolvedValueOnce(
      answer(400, { error: 'Captcha verification failed.', code: 'CAPTCHA_FAILED' }),
    );
    const { register, captcha, toasts } = setup('spent');
    let result: unknown = 'unset';
    await act(async () => {
      result = await register(body);
    });
    expect(result).toBeNull();
    expect(captcha.reset).toHaveBeenCalledTimes(1);
    expect(toasts.shown?.title).toBe('Captcha Error');
  });

  it("shows the server's reason for any other refusal, and readies the captcha for another try", async () => {
    fetchMock.mockResolvedValueOnce(
      answer(409, { error: 'An account with this email already exists.', code: 'CONFLICT' }),
    );
    const { register, captcha, toasts } = setup('solution-2');
    await act(async () => {
      await register(body);
    });
    expect(captcha.reset).toHaveBeenCalledTimes(1);
    expect(toasts.shown).toEqual({
      title: 'Error',
      description: 'An account with this email already exists.',
      variant: 'destructive',
    });
  });
});
