// @vitest-environment jsdom
import type { StudyListItem } from '@mi/contracts/studies';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MyStudies } from '../src/features/studies/components/my-studies';
import { StudyCards } from '../src/features/studies/components/study-cards';
import { queryKeys } from '../src/lib/query-keys';

const USER_ID = '5d0f1c9e-2b7a-4c3e-8f61-9a0b1c2d3e4f';

/** Study n: 'Patient^Number<n>', uploaded n minutes before the first (so 0 is the newest). */
function study(n: number): StudyListItem {
  const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
  return {
    _id: id,
    id,
    studyId: `1.2.3.${n}`,
    createdAt: new Date(Date.UTC(2024, 0, 1) - n * 60_000).toISOString(),
    status: { process: { value: 'completed', reason: null }, transfer: { value: null } },
    metadata: {
      studyDescription: `Study ${n}`,
      location: null,
      patientName: `Patient^Number${n}`,
      modality: n % 2 ? 'MR' : 'CT',
      studyDate: '2020-01-01',
    },
    latestCompletionDate: null,
  };
}

const fetchMock = vi.fn<typeof fetch>();
let wide = true;
beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
  // The table from 1280 px, the cards below (studies-list.tsx).
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: wide && query === '(min-width: 1280px)',
    media: query,
    addEventListener() {},
    removeEventListener() {},
  }));
  Element.prototype.scrollIntoView = vi.fn();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  wide = true;
});

function renderMyStudies(studies: StudyListItem[], client = new QueryClient()) {
  fetchMock.mockImplementation(
    async () =>
      new Response(JSON.stringify({ data: studies }), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      }),
  );
  client.setDefaultOptions({ queries: { retry: false } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <MyStudies userId={USER_ID} newOnly={false} processing={0} sharingAllowed onShareByLink={vi.fn()} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

/** The patient names of the table's rows, as shown ('Patient, Number7' → 7). */
function shownNumbers(): number[] {
  const body = screen.getByRole('table').querySelector('tbody')!;
  return within(body)
    .getAllByRole('row')
    .map((row) => Number(/Number(\d+)/.exec(row.textContent ?? '')?.[1]));
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('My Studies a page at a time', () => {
  it('renders 25 studies of 60 with a pager, and pages through them', async () => {
    const user = userEvent.setup();
    renderMyStudies(range(0, 60).map(study));
    expect(await screen.findByText('Studies 1–25 of 60')).toBeTruthy();
    // Asked for while rendering (get-user-studies.ts) and not again once shown.
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(shownNumbers()).toEqual(range(0, 25));
    const pager = screen.getByRole('navigation', { name: 'Pages of studies' });
    expect(within(pager).getByText('Page 1 of 3')).toBeTruthy();
    expect(within(pager).getByRole('button', { name: /Previous/ })).toHaveProperty('disabled', true);

    await user.click(within(pager).getByRole('button', { name: /Next/ }));
    expect(shownNumbers()).toEqual(range(25, 50));
    expect(screen.getByText('Studies 26–50 of 60')).toBeTruthy();
    await user.click(within(pager).getByRole('button', { name: 'Last page' }));
    expect(shownNumbers()).toEqual(range(50, 60));
    expect(within(pager).getByText('Page 3 of 3')).toBeTruthy();
    expect(within(pager).getByRole('button', { name: /Next/ })).toHaveProperty('disabled', true);
    await user.click(within(pager).getByRole('button', { name: 'First page' }));
    expect(shownNumbers()).toEqual(range(0, 25));
  });

  it('goes back to the first page when the sort or the search changes', async () => {
    const user = userEvent.setup();
    renderMyStudies(range(0, 60).map(study));
    await screen.findByText('Studies 1–25 of 60');
    await user.click(screen.getByRole('button', { name: /Next/ }));
    expect(shownNumbers()[0]).toBe(25);

    // Oldest upload first: the first page of the new order.
    await user.click(screen.getByRole('button', { name: 'Upload Date' }));
    expect(shownNumbers()).toEqual(range(35, 60).reverse());
    expect(screen.getByText('Studies 1–25 of 60')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: /Next/ }));
    await user.type(screen.getByRole('searchbox', { name: 'Search studies' }), 'Number1');
    // Number1 and Number10–19, oldest upload first.
    expect(shownNumbers()).toEqual([...range(10, 20).reverse(), 1]);
    expect(screen.queryByRole('navigation', { name: 'Pages of studies' })).toBeNull();
  });

  it('selects every study of the page shown, and keeps the other pages’ selection', async () => {
    const user = userEvent.setup();
    renderMyStudies(range(0, 60).map(study));
    await screen.findByText('Studies 1–25 of 60');
    await user.click(screen.getByRole('checkbox', { name: 'Select all studies shown' }));
    expect(screen.getByText('25 studies selected')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: /Next/ }));
    expect(
      screen.getByRole('checkbox', { name: 'Select all studies shown' }).getAttribute('data-state'),
    ).toBe('unchecked');
    await user.click(screen.getByRole('checkbox', { name: 'Select Study 25' }));
    expect(screen.getByText('26 studies selected')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'First page' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select all studies shown' }));
    expect(screen.getByText('1 study selected')).toBeTruthy();
  });

  it('shows no pager for 25 studies or fewer, and pages the cards of narrow screens too', async () => {
    renderMyStudies(range(0, 25).map(study));
    expect(await screen.findByText('Patient, Number24')).toBeTruthy();
    expect(screen.queryByRole('navigation', { name: 'Pages of studies' })).toBeNull();
    cleanup();

    wide = false;
    renderMyStudies(range(0, 26).map(study));
    const cards = await screen.findByRole('list', { name: 'My studies' });
    expect(within(cards).getAllByRole('listitem')).toHaveLength(25);
    expect(screen.getByText('Studies 1–25 of 26')).toBeTruthy();
  });
});

describe('the Dashboard’s studies a page at a time', () => {
  it('renders 25 cards of 60 with a pager, back to the first page on a new search', async () => {
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <StudyCards
          query={{
            data: range(0, 60).map(study),
            isPending: false,
            isError: false,
            error: null,
            refetch: () => undefined,
          }}
        />
      </MemoryRouter>,
    );
    const cards = () => within(screen.getByRole('list', { name: 'Studies' })).getAllByRole('listitem');
    expect(cards()).toHaveLength(25);
    await user.click(screen.getByRole('button', { name: 'Last page' }));
    expect(cards()).toHaveLength(10);
    expect(screen.getByText('Studies 51–60 of 60')).toBeTruthy();
    await user.type(screen.getByRole('searchbox', { name: 'Search studies' }), 'Study 1');
    // Study 1 and Study 10–19.
    expect(cards()).toHaveLength(11);
    expect(screen.queryByRole('navigation', { name: 'Pages of studies' })).toBeNull();
  });
});

describe('reading the list', () => {
  it('reads it again when My Studies is entered with a list cached from another page', async () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.userStudies.byUser(USER_ID), [study(7)], { updatedAt: Date.now() - 5_000 });
    renderMyStudies(range(0, 3).map(study), client);
    expect(await screen.findByText('Patient, Number2')).toBeTruthy();
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(screen.queryByText('Patient, Number7')).toBeNull();
  });
});
