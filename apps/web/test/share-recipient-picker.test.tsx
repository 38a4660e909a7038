// @vitest-environment jsdom
import type { Provider, Share } from '@mi/contracts/sharing';
import type { StudyListItem } from '@mi/contracts/studies';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ShareStudyDialog } from '../src/features/studies/components/share-study-dialog';

const USER_ID = '5d0f1c9e-2b7a-4c3e-8f61-9a0b1c2d3e4f';
const STUDY_ID = '00000000-0000-4000-8000-000000000001';

const study: StudyListItem = {
  _id: STUDY_ID,
  id: STUDY_ID,
  studyId: '1.2.3',
  createdAt: '2024-01-01T00:00:00Z',
  status: { process: { value: 'completed', reason: null }, transfer: { value: null } },
  metadata: {
    studyDescription: 'Knee MRI',
    location: null,
    patientName: 'Doe^Jane',
    modality: 'MR',
    studyDate: '2020-01-01',
  },
  latestCompletionDate: null,
};

function provider(id: string, name: string, email: string, specialty: string | null = null): Provider {
  return {
    _id: id,
    id,
    name,
    specialty,
    description: null,
    yearsOfExperience: null,
    rating: null,
    ratingCount: 0,
    kind: 'contact',
    verified: null,
    hospital: null,
    position: null,
    demo: false,
    credentials: [],
    location: null,
    academicProfile: null,
    contactInformation: { email, mobile: null, website: null },
    workingHours: null,
    onPlatform: false,
  };
}

const PROVIDERS = [
  provider('p1', 'Dr. Ada Lovelace', 'ada@clinic.example', 'Radiology'),
  provider('p2', 'Dr. Alan Turing', 'alan@clinic.example', 'Cardiology'),
  provider('p3', 'Dr. Grace Hopper', 'grace@clinic.example', 'Radiology'),
];

const SHARED: Share = {
  _id: 's1',
  id: 's1',
  email: 'grace@clinic.example',
  targetUser: null,
  createdAt: '2024-03-01T10:00:00Z',
  accepted: false,
  provider: null,
  study: {
    _id: STUDY_ID,
    studyId: null,
    metadata: { studyDescription: null, patientName: null, modality: null, studyDate: null },
  },
} as Share;

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const fetchMock = vi.fn<typeof fetch>();
let posted: unknown[] = [];
let sharesAnswer: () => Response = () => json(200, { data: [SHARED] });

beforeEach(() => {
  posted = [];
  sharesAnswer = () => json(200, { data: [SHARED] });
  fetchMock.mockReset();
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    if (url.startsWith('/api/users/shares/study/')) return sharesAnswer();
    if (url === '/api/users/providers') return json(200, { data: PROVIDERS });
    if (url === '/api/users/shares' && init?.method === 'POST') {
      posted.push(JSON.parse(String(init.body)));
      return json(201, { message: 'Shared' });
    }
    return json(200, { data: [] });
  });
  vi.stubGlobal('fetch', fetchMock);
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

function renderDialog(onClose = vi.fn()) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <ShareStudyDialog study={study} userId={USER_ID} sharingAllowed onClose={onClose} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return onClose;
}

const field = () => screen.getByRole('combobox', { name: 'Email' });
const options = () => within(screen.getByRole('listbox', { name: 'Suggestions' })).getAllByRole('option');
const chips = () =>
  within(screen.getByRole('list', { name: 'Selected recipients' }))
    .getAllByRole('listitem')
    .map((li) => li.textContent);

describe('the share dialog’s recipient picker', () => {
  it('suggests every provider, filters as one types, and marks one the study is shared with', async () => {
    const user = userEvent.setup();
    renderDialog();
    await screen.findByText('grace@clinic.example');
    await user.click(field());
    expect(screen.getByText('All your providers:')).toBeTruthy();
    expect(options().map((o) => o.textContent)).toEqual([
      expect.stringContaining('Dr. Ada Lovelace'),
      expect.stringContaining('Dr. Alan Turing'),
      expect.stringContaining('Dr. Grace Hopper'),
    ]);
    // Grace already has the study.
    expect(options()[2]!.getAttribute('aria-disabled')).toBe('true');
    await user.type(field(), 'radio');
    expect(screen.getByText('Filtered suggestions:')).toBeTruthy();
    expect(options().map((o) => o.textContent)).toEqual([
      expect.stringContaining('Dr. Ada Lovelace'),
      expect.stringContaining('Dr. Grace Hopper'),
    ]);
  });

  it('picks with the arrow keys and Enter, and a picked provider cannot be picked again', async () => {
    const user = userEvent.setup();
    renderDialog();
    await screen.findByText('grace@clinic.example');
    await user.click(field());
    await user.keyboard('{ArrowDown}{ArrowDown}{Enter}');
    expect(chips()).toEqual([expect.stringContaining('Dr. Alan Turing')]);
    expect(field()).toHaveProperty('value', '');
    expect(options()[1]!.getAttribute('aria-disabled')).toBe('true');
    await user.click(options()[1]!);
    expect(chips()).toHaveLength(1);
  });

  it('adds a typed address as a chip and refuses one already shared or already chosen', async () => {
    const user = userEvent.setup();
    renderDialog();
    await screen.findByText('grace@clinic.example');
    await user.type(field(), 'new@example.org{Enter}');
    expect(chips()).toEqual([expect.stringContaining('new@example.org')]);
    await user.type(field(), 'NEW@example.org{Enter}');
    expect(screen.getByText('NEW@example.org is already selected.')).toBeTruthy();
    await user.clear(field());
    await user.type(field(), 'grace@clinic.example{Enter}');
    expect(screen.getByText('This study is already shared with grace@clinic.example.')).toBeTruthy();
    expect(chips()).toHaveLength(1);
  });

  it('shares with each recipient by its own request, providers by id and addresses added', async () => {
    const user = userEvent.setup();
    const onClose = renderDialog();
    await screen.findByText('grace@clinic.example');
    await user.click(field());
    await user.click(options()[0]!);
    await user.type(field(), 'new@example.org{Enter}');
    await user.click(screen.getByRole('button', { name: 'Share Study' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(posted).toEqual([
      { providerId: 'p1', studyId: STUDY_ID },
      { email: 'new@example.org', studyId: STUDY_ID, addProvider: true },
    ]);
  });

  it('says so when who has the study cannot be read, rather than showing nobody', async () => {
    sharesAnswer = () => json(500, { error: 'Database unavailable', code: 'INTERNAL' });
    renderDialog();
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Who the study is shared with could not be loaded');
    expect(screen.queryByText('Not shared with anyone yet.')).toBeNull();
  });
});
