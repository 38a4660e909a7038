// @vitest-environment jsdom
import type { User } from '@mi/contracts/auth';
import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { PasswordCard } from '../src/features/settings/components/password-card';
import { PrivacySettings } from '../src/features/settings/components/privacy-settings';
import { createQueryClient } from '../src/lib/query-client';
import { queryKeys } from '../src/lib/query-keys';
import { answer, stubFetch } from './network';

/**
 * Security settings in the web app: when the server asks for a recent proof of identity (403
 * REAUTH_REQUIRED), "Confirm it's you" asks for it and the change is sent again. The server is
 * played by a stubbed fetch (each answer in turn, as the API gives it).
 */

function account(over: Partial<User> = {}): User {
  return {
    id: '6f1c9e1e-2f7a-4a49-9f7e-0c7d1b0e5a11',
    name: 'Pat Smith',
    email: 'pat@example.com',
    role: 'patient',
    accountStatus: 'active',
    rejectionReason: null,
    dateOfBirth: null,
    mobilePhone: '+15550100',
    shareMedicalData: false,
    mfaEnabled: true,
    mfaMethod: 'email',
    totpEnrolled: false,
    emailNotifications: true,
    smsNotifications: false,
    welcomeModalShown: true,
    emailVerified: true,
    termsAcceptedAt: null,
    shareMedicalDataUpdatedAt: null,
    uploadLimits: { currentStorageGB: 0, maxStorageGB: 10 },
    createdAt: '2026-01-01T00:00:00.000Z',
    hasPassword: true,
    googleLinked: false,
    passwordChangeRequired: false,
    ...over,
  };
}

const REAUTH = {
  error:
    'For your security, please confirm it is you (your password, a code or Google) to change this. Security settings need a confirmation from the last 5 minutes.',
  code: 'REAUTH_REQUIRED',
};
const fetchMock = stubFetch();
/** Answers by method and path, in order for repeated calls; records what was sent. */
function server(routes: Record<string, Array<[number, unknown]>>) {
  fetchMock.mockImplementation(async (input, init) => {
    const key = `${init?.method ?? 'GET'} ${String(input)}`;
    const next = routes[key]?.shift();
    if (!next) return answer(404, { error: `no answer for ${key}`, code: 'NOT_FOUND' });
    return answer(...next);
  });
}
const sent = () =>
  fetchMock.mock.calls.map(([input, init]) => ({
    call: `${init?.method ?? 'GET'} ${String(input)}`,
    body: init?.body ? (JSON.parse(String(init.body)) as unknown) : undefined,
  }));

function renderWith(ui: React.ReactElement, user: User) {
  const client = createQueryClient();
  client.setDefaultOptions({ queries: { retry: false }, mutations: { retry: false } });
  client.setQueryData(queryKeys.me, user);
  return render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>);
}

const config = [200, { captcha: null, googleClientId: null, defaultMaxStorageGB: 10, session: {} }] as [
  number,
  unknown,
];

describe('turning two-factor sign-in off', () => {
  it('asks for the password when the proof is old, then turns it off', async () => {
    const me = account();
    server({
      [`PUT /api/users/${me.id}`]: [
        [403, REAUTH],
        [200, { ...me, mfaEnabled: false }],
      ],
      'POST /api/auth/reauthenticate': [
        [401, { error: 'Incorrect password. Please try again.', code: 'INVALID_CREDENTIALS' }],
        [200, { message: 'ok', validUntil: '2026-01-01T00:05:00.000Z' }],
      ],
      'GET /api/config': [config],
    });
    const user = userEvent.setup();
    renderWith(<PrivacySettings user={me} />, me);

    await user.click(screen.getByRole('switch', { name: 'Two-Factor Authentication' }));
    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    expect(within(dialog).getByText(/needs a confirmation from the last 5 minutes/)).toBeTruthy();
    // Emailed codes are offered to an account whose second factor is email.
    expect(within(dialog).getByRole('button', { name: 'Email me a code' })).toBeTruthy();

    await user.type(within(dialog).getByLabelText('Current password'), 'Wrong!Passw0rd');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'Incorrect password. Please try again.',
    );

    await user.clear(within(dialog).getByLabelText('Current password'));
    await user.type(within(dialog).getByLabelText('Current password'), 'Str0ng!Passw0rd');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() =>
      expect(sent().filter((s) => s.call.startsWith('PUT'))).toEqual([
        { call: `PUT /api/users/${me.id}`, body: { mfaEnabled: false } },
        { call: `PUT /api/users/${me.id}`, body: { mfaEnabled: false } },
      ]),
    );
    expect(
      sent()
        .filter((s) => s.call === 'POST /api/auth/reauthenticate')
        .map((s) => s.body),
    ).toEqual([{ password: 'Wrong!Passw0rd' }, { password: 'Str0ng!Passw0rd' }]);
  });

  it('sends nothing more when the confirmation is cancelled', async () => {
    const me = account();
    server({ [`PUT /api/users/${me.id}`]: [[403, REAUTH]], 'GET /api/config': [config] });
    const user = userEvent.setup();
    renderWith(<PrivacySettings user={me} />, me);
    await user.click(screen.getByRole('switch', { name: 'Two-Factor Authentication' }));
    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(sent().filter((s) => s.call !== 'GET /api/config')).toHaveLength(1);
  });

  it('takes a code from the authenticator app instead', async () => {
    const me = account({ mfaMethod: 'totp', totpEnrolled: true });
    server({
      [`PUT /api/users/${me.id}`]: [
        [403, REAUTH],
        [200, { ...me, mfaEnabled: false }],
      ],
      'POST /api/auth/reauthenticate': [[200, { message: 'ok', validUntil: '2026-01-01T00:05:00.000Z' }]],
      'GET /api/config': [config],
    });
    const user = userEvent.setup();
    renderWith(<PrivacySettings user={me} />, me);
    await user.click(screen.getByRole('switch', { name: 'Two-Factor Authentication' }));
    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    await user.type(within(dialog).getByLabelText('Or a code from your authenticator app'), '123456');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm with code' }));
    await waitFor(() => expect(sent().filter((s) => s.call.startsWith('PUT'))).toHaveLength(2));
    expect(sent().find((s) => s.call === 'POST /api/auth/reauthenticate')!.body).toEqual({ code: '123456' });
  });
});

describe('changing the password', () => {
  it('checks the new password and its confirmation before sending, then sends the current one as the proof', async () => {
    const me = account();
    server({
      'POST /api/auth/password': [
        [401, { error: 'Incorrect password. Please try again.', code: 'INVALID_CREDENTIALS' }],
        [200, { message: 'Your password was changed and 1 other session was signed out.' }],
      ],
    });
    const user = userEvent.setup();
    renderWith(<PasswordCard user={me} />, me);
    const form = screen.getByRole('form', { name: 'Change password' });
    await user.type(within(form).getByLabelText('Current password'), 'Wrong!Passw0rd');
    await user.type(within(form).getByLabelText('New password'), 'N3w!Passw0rd');
    await user.type(within(form).getByLabelText('Confirm new password'), 'N3w!Passw0rdX');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByText('Passwords do not match')).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();

    await user.clear(within(form).getByLabelText('Confirm new password'));
    await user.type(within(form).getByLabelText('Confirm new password'), 'N3w!Passw0rd');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect((await within(form).findByRole('alert')).textContent).toBe(
      'Incorrect password. Please try again.',
    );

    await user.clear(within(form).getByLabelText('Current password'));
    await user.type(within(form).getByLabelText('Current password'), 'Str0ng!Passw0rd');
    await user.click(within(form).getByRole('button', { name: 'Change password' }));
    await waitFor(() => expect(sent().filter((s) => s.call === 'POST /api/auth/password')).toHaveLength(2));
    expect(sent().filter((s) => s.call === 'POST /api/auth/password')[1]!.body).toEqual({
      currentPassword: 'Str0ng!Passw0rd',
      newPassword: 'N3w!Passw0rd',
    });
    await waitFor(() =>
      expect((within(form).getByLabelText('New password') as HTMLInputElement).value).toBe(''),
    );
  });

  it('lets a Google-only account set a first password after confirming it is them', async () => {
    const me = account({ hasPassword: false, googleLinked: true, mfaEnabled: false, mfaMethod: null });
    server({
      'POST /api/auth/password': [[403, REAUTH]],
      'GET /api/config': [config],
    });
    const user = userEvent.setup();
    renderWith(<PasswordCard user={me} />, me);
    const form = screen.getByRole('form', { name: 'Set a password' });
    expect(within(form).queryByLabelText('Current password')).toBeNull();
    await user.type(within(form).getByLabelText('New password'), 'F1rst!Passw0rd');
    await user.type(within(form).getByLabelText('Confirm new password'), 'F1rst!Passw0rd');
    await user.click(within(form).getByRole('button', { name: 'Set password' }));
    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    // No password to give; Google is not configured here, so the dialog says what to do instead.
    expect(within(dialog).queryByLabelText('Current password')).toBeNull();
    expect(within(dialog).getByText(/Sign out and sign in again/)).toBeTruthy();
  });
});
