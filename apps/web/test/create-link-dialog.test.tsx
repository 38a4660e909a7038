// @vitest-environment jsdom
import { CHECKIN_MAX_MINUTES, PASSCODE_REQUIRED_AFTER_HOURS, type CreatedLink } from '@mi/contracts/links';
import type { StudyListItem } from '@mi/contracts/studies';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CreateLinkDialog } from '../src/features/study-links/components/create-link-dialog';
import { extendProblem } from '../src/features/study-links/components/extend-link-dialog';
import { toLocalInput } from '../src/features/study-links/utils/link-policy';

const STUDY_ID = '0b6f3c1e-5a51-4d1b-9a34-1f4b8f3a2c10';
const USER_ID = '5e0c1d2a-7b3f-4c9e-8a61-3f2d9b7c4e55';

const study = {
  id: STUDY_ID,
  metadata: { studyDescription: 'MRI Knee' },
} as unknown as StudyListItem;

function created(mode: 'share' | 'checkin', over: Partial<CreatedLink['link']> = {}): CreatedLink {
  return {
    id: 'a7c2f7a4-3a3f-4a8e-9f52-2d1c0e7b9b11',
    shlink: 'shlink:/eyJ1cmwiOiJ4In0',
    viewerUrl: 'http://localhost:3000/shl#shlink:/eyJ1cmwiOiJ4In0',
    qrSvg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>',
    link: {
      id: 'a7c2f7a4-3a3f-4a8e-9f52-2d1c0e7b9b11',
      mode,
      label: null,
      status: 'active',
      studies: [{ id: STUDY_ID, description: 'MRI Knee', studyDate: null }],
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
      hasPasscode: false,
      allowDownload: false,
      maxOpens: null,
      opens: 0,
      passcodeAttemptsLeft: null,
      lastOpenedAt: null,
      lastRecipient: null,
      ...over,
    },
  };
}

function renderWithQuery(ui: ReactElement) {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter>{ui}</MemoryRouter>
    </QueryClientProvider>,
  );
}

const fetchMock = vi.fn<typeof fetch>();
beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
  // Radix's checkbox measures itself; jsdom has no ResizeObserver.
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

function sentBody(): Record<string, unknown> {
  const [, init] = fetchMock.mock.calls[0]!;
  return JSON.parse(String(init?.body)) as Record<string, unknown>;
}

describe('Share by link / QR', () => {
  it('creates a one-day share link without a passcode, download off by default', async () => {
    const user = userEvent.setup();
    fetchMock.mockResolvedValueOnce(answer(200, created('share')));
    renderWithQuery(<CreateLinkDialog studies={[study]} userId={USER_ID} sharingAllowed onClose={vi.fn()} />);

    expect(screen.getByRole('radio', { name: /Share link/ })).toHaveProperty('checked', true);
    expect((screen.getByLabelText('Expires after') as HTMLSelectElement).value).toBe(String(24 * 60));
    expect(screen.getByRole('checkbox', { name: 'Allow download' }).getAttribute('data-state')).toBe(
      'unchecked',
    );
    await user.click(screen.getByRole('button', { name: 'Create link' }));

    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/studies/links');
    expect(init?.method).toBe('POST');
    const body = sentBody();
    expect(body).toMatchObject({ studyIds: [STUDY_ID], mode: 'share', allowDownload: false });
    expect(body).not.toHaveProperty('passcode');
    const lifetime = Date.parse(String(body.expiresAt)) - Date.now();
    expect(lifetime).toBeGreaterThan(23.9 * 3_600_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3_600_000);

    // The link, large as a QR code and as text to copy.
    expect(await screen.findByRole('heading', { name: 'Your link is ready' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'QR code of the link' }).getAttribute('src')).toMatch(
      /^data:image\/svg\+xml/,
    );
    expect((screen.getByLabelText('Link') as HTMLInputElement).value).toBe(created('share').viewerUrl);
    expect(screen.getByRole('button', { name: 'Print' })).toBeTruthy();
    expect(screen.getByRole('button', { name: /QR as SVG/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: /QR as PNG/ })).toBeTruthy();
  });

  it(`asks for a passcode when the link lives more than ${PASSCODE_REQUIRED_AFTER_HOURS} hours`, async () => {
    const user = userEvent.setup();
    fetchMock.mockResolvedValueOnce(answer(200, created('share', { hasPasscode: true })));
    renderWithQuery(<CreateLinkDialog studies={[study]} userId={USER_ID} sharingAllowed onClose={vi.fn()} />);

    await user.selectOptions(screen.getByLabelText('Expires after'), '7 days');
    expect(screen.getByText('(required for more than 24 hours)')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(await screen.findByText(/A link that lasts more than 24 hours needs a passcode/)).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();

    // Too short a passcode is refused too.
    const passcode = screen.getByLabelText(/^Passcode/);
    await user.type(passcode, 'abc');
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(await screen.findByText('The passcode needs at least 4 characters.')).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();

    await user.type(passcode, 'd');
    await user.type(screen.getByLabelText(/^Label/), '  Dr Rivera  ');
    await user.type(screen.getByLabelText(/^Maximum opens/), '3');
    await user.click(screen.getByRole('checkbox', { name: 'Allow download' }));
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(sentBody()).toMatchObject({
      mode: 'share',
      passcode: 'abcd',
      label: 'Dr Rivera',
      maxOpens: 3,
      allowDownload: true,
    });
    expect(Date.parse(String(sentBody().expiresAt)) - Date.now()).toBeGreaterThan(6.9 * 24 * 3_600_000);
    // The reminder to send the passcode another way.
    expect(await screen.findByText(/Send the passcode separately/)).toBeTruthy();
  });

  it('links to de-identified copies: shows the preview first, then says the link follows when they are made', async () => {
    const user = userEvent.setup();
    const preview = {
      edition: 'DICOM PS3.15 2024b',
      profile: 'Basic Application Level Confidentiality Profile',
      options: ['Clean Descriptors'],
      instanceCount: 2,
      sample: {
        sopInstanceUid: '1.2.3',
        changes: [
          {
            path: '(0010,0010)',
            tag: '(0010,0010)',
            name: "Patient's Name",
            kind: 'emptied',
            before: 'Doe^Jane',
            after: '',
          },
        ],
        nestedChanges: 0,
        privateRemoved: 1,
      },
      leftOut: [],
    };
    fetchMock.mockImplementation(async (url) =>
      String(url).includes('/deidentify/preview')
        ? answer(200, preview)
        : answer(202, { pending: true, jobId: 'j1', message: 'De-identified copies are being made.' }),
    );
    renderWithQuery(<CreateLinkDialog studies={[study]} userId={USER_ID} sharingAllowed onClose={vi.fn()} />);
    await user.click(screen.getByRole('checkbox', { name: 'Link to de-identified copies' }));
    // Before it is used, what it changes: the name, now and after.
    expect(await screen.findByText('Doe^Jane')).toBeTruthy();
    expect(screen.getByText('Left out: 0 of 2 image(s)')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(await screen.findByRole('heading', { name: 'Making de-identified copies' })).toBeTruthy();
    expect(screen.getByText('De-identified copies are being made.')).toBeTruthy();
    const create = fetchMock.mock.calls.find(([url]) => String(url) === '/api/studies/links')!;
    expect(JSON.parse(String(create[1]?.body))).toMatchObject({ studyIds: [STUDY_ID], deidentified: true });
  });

  it('offers no de-identified copies of a study that is one already', async () => {
    const copy = { ...study, deidentified: true } as StudyListItem;
    renderWithQuery(<CreateLinkDialog studies={[copy]} userId={USER_ID} sharingAllowed onClose={vi.fn()} />);
    expect(screen.getByRole('button', { name: 'Create link' })).toBeTruthy();
    expect(screen.queryByRole('checkbox', { name: 'Link to de-identified copies' })).toBeNull();
    cleanup();
    // With an identified study beside it, the option stays, for that one.
    renderWithQuery(
      <CreateLinkDialog studies={[copy, study]} userId={USER_ID} sharingAllowed onClose={vi.fn()} />,
    );
    expect(screen.getByRole('checkbox', { name: 'Link to de-identified copies' })).toBeTruthy();
  });

  it('refuses a maximum of opens that is not a whole number from 1', async () => {
    const user = userEvent.setup();
    renderWithQuery(<CreateLinkDialog studies={[study]} userId={USER_ID} sharingAllowed onClose={vi.fn()} />);
    await user.type(screen.getByLabelText(/^Maximum opens/), '0');
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(await screen.findByText(/Enter a whole number from 1 to 10,000/)).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it(`keeps a check-in link within ${CHECKIN_MAX_MINUTES} minutes and offers no passcode`, async () => {
    const user = userEvent.setup();
    fetchMock.mockResolvedValueOnce(answer(200, created('checkin')));
    renderWithQuery(
      <CreateLinkDialog
        studies={[study, { ...study, id: 'c3d1f1de-8a47-4f55-8a0a-8c6f3e8f0a01' }]}
        userId={USER_ID}
        sharingAllowed
        onClose={vi.fn()}
      />,
    );
    expect(screen.getByText('2 studies')).toBeTruthy();

    await user.click(screen.getByRole('radio', { name: /Check-in link/ }));
    expect(screen.queryByLabelText(/^Passcode/)).toBeNull();
    const expiry = screen.getByLabelText('Expires after') as HTMLSelectElement;
    expect(expiry.value).toBe('15');
    expect(
      within(expiry)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['15 minutes', 'Custom date and time…']);

    await user.selectOptions(expiry, 'Custom date and time…');
    const custom = screen.getByLabelText('Expires on');
    await user.type(custom, toLocalInput(new Date(Date.now() + 2 * 3_600_000)));
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(await screen.findByText(/at most 60 minutes. Choose an earlier time/)).toBeTruthy();
    expect(fetchMock).not.toHaveBeenCalled();

    await user.clear(custom);
    await user.type(custom, toLocalInput(new Date(Date.now() + 30 * 60_000)));
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const body = sentBody();
    expect(body).toMatchObject({
      mode: 'checkin',
      studyIds: [STUDY_ID, 'c3d1f1de-8a47-4f55-8a0a-8c6f3e8f0a01'],
    });
    expect(body).not.toHaveProperty('passcode');
    const minutes = (Date.parse(String(body.expiresAt)) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(28);
    expect(minutes).toBeLessThanOrEqual(CHECKIN_MAX_MINUTES);
    expect(await screen.findByRole('heading', { name: 'Your check-in link is ready' })).toBeTruthy();
  });

  it('says sharing is off before a link is asked for, and turns it on there', async () => {
    const user = userEvent.setup();
    fetchMock.mockResolvedValueOnce(answer(200, { id: USER_ID, shareMedicalData: true }));
    renderWithQuery(
      <CreateLinkDialog studies={[study]} userId={USER_ID} sharingAllowed={false} onClose={vi.fn()} />,
    );
    const consent = screen.getByRole('region', { name: 'Sharing is turned off' });
    expect(
      within(consent).getByText(/Your Share Medical Records setting is off, so no link can be made\./),
    ).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Create link' })).toHaveProperty('disabled', true);
    await user.click(within(consent).getByRole('button', { name: 'Turn On Share Medical Records' }));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe(`/api/users/${USER_ID}`);
    expect(init?.method).toBe('PUT');
    expect(sentBody()).toEqual({ shareMedicalData: true });
    cleanup();
    renderWithQuery(<CreateLinkDialog studies={[study]} userId={USER_ID} sharingAllowed onClose={vi.fn()} />);
    expect(screen.queryByRole('region', { name: 'Sharing is turned off' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Create link' })).toHaveProperty('disabled', false);
  });

  it('shows why the server refused the link', async () => {
    const user = userEvent.setup();
    fetchMock.mockResolvedValueOnce(answer(400, { error: 'Choose at least one study.', code: 'VALIDATION' }));
    renderWithQuery(<CreateLinkDialog studies={[study]} userId={USER_ID} sharingAllowed onClose={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Create link' }));
    expect(await screen.findByText('Choose at least one study.')).toBeTruthy();
  });
});

describe('Extend link', () => {
  const now = new Date();
  const link = created('share').link;
  it('keeps a link without a passcode within a day, and a check-in link within an hour', () => {
    expect(extendProblem(link, new Date(now.getTime() + 2 * 24 * 3_600_000), now)).toMatch(/no passcode/);
    expect(extendProblem(link, new Date(now.getTime() + 20 * 3_600_000), now)).toBeNull();
    expect(
      extendProblem({ ...link, hasPasscode: true }, new Date(now.getTime() + 30 * 24 * 3_600_000), now),
    ).toBeNull();
    expect(extendProblem({ ...link, mode: 'checkin' }, new Date(now.getTime() + 61 * 60_000), now)).toMatch(
      /at most 60 minutes/,
    );
    expect(extendProblem(link, new Date(now.getTime() - 60_000), now)).toBe('Choose a time in the future.');
  });
});
