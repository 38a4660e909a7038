// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FilterToolbar } from '../src/components/list/filter-toolbar';
import { ListLayout } from '../src/components/list/list-layout';
import { ListPager, OpenEndedPager } from '../src/components/list/list-pager';
import { ListStatus, ListStatusRow, type ListQuery } from '../src/components/list/list-status';
import { matchesText } from '../src/components/list/sort';
import { SortHeader } from '../src/components/list/sort-controls';
import { useList } from '../src/components/list/use-list';
import { ApiError } from '../src/lib/api-client';

interface Person {
  name: string;
  age: number;
  team: string;
}

const PEOPLE: Person[] = Array.from({ length: 60 }, (_, i) => ({
  name: `Person ${String(i).padStart(2, '0')}`,
  age: 20 + ((i * 7) % 40),
  team: i % 3 === 0 ? 'red' : 'blue',
}));
PEOPLE.push({ name: 'Zoë Jérôme', age: 99, team: 'red' });

const loaded: ListQuery = { isPending: false, isError: false, error: null, refetch: () => undefined };

function People({ rows, query = loaded }: { rows: Person[] | undefined; query?: ListQuery }) {
  const list = useList<Person, 'name' | 'age', { team: string }>({
    rows,
    sort: { key: 'name', dir: 'asc' },
    sortBy: { name: (p) => p.name, age: (p) => p.age },
    search: (p, q) => matchesText([p.name], q),
    filters: { team: 'all' },
    filter: (p, f) => f.team === 'all' || p.team === f.team,
  });
  return (
    <div>
      <FilterToolbar
        search={list.search}
        onSearch={list.setSearch}
        placeholder="Search people..."
        searchLabel="Search people"
        filters={[
          {
            label: 'Team',
            allLabel: 'All Teams',
            value: list.filters.team,
            onChange: (team) => list.setFilter('team', team),
            options: [
              { value: 'red', label: 'Red' },
              { value: 'blue', label: 'Blue' },
            ],
          },
        ]}
      />
      <table aria-label="People">
        <thead>
          <tr>
            <SortHeader sortKey="name" label="Name" sort={list.sort} onSort={list.setSort} />
            <SortHeader sortKey="age" label="Age" sort={list.sort} onSort={list.setSort} />
          </tr>
        </thead>
        <tbody>
          <ListStatusRow
            query={query}
            count={list.rows.length}
            columns={2}
            error="Failed to load people."
            empty="No people found"
          />
          {!query.isError &&
            list.rows.map((p) => (
              <tr key={p.name}>
                <td>{p.name}</td>
                <td>{p.age}</td>
              </tr>
            ))}
        </tbody>
      </table>
      <ListPager
        page={list.page}
        pageCount={list.pageCount}
        pageSize={list.pageSize}
        total={list.matching.length}
        onPage={list.setPage}
        noun="People"
        label="Pages of people"
      />
    </div>
  );
}

const names = () =>
  within(screen.getByRole('table', { name: 'People' }))
    .queryAllByRole('row')
    .slice(1)
    .map((row) => row.querySelector('td')?.textContent);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the list toolkit', () => {
  it('shows 25 rows a page, sorted by the first sort, with a pager to the others', async () => {
    const user = userEvent.setup();
    render(<People rows={PEOPLE} />);
    expect(names()).toHaveLength(25);
    expect(names()[0]).toBe('Person 00');
    expect(screen.getByText('People 1–25 of 61')).toBeTruthy();
    expect(screen.getByText('Page 1 of 3')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(names()[0]).toBe('Person 25');
    await user.click(screen.getByRole('button', { name: 'Last page' }));
    expect(names()).toEqual([...Array.from({ length: 10 }, (_, i) => `Person 5${i}`), 'Zoë Jérôme']);
    expect(screen.getByRole('button', { name: 'Next' })).toHaveProperty('disabled', true);
  });

  it('sorts by a clicked column, numbers as numbers, and turns the direction on a second click', async () => {
    const user = userEvent.setup();
    render(<People rows={PEOPLE} />);
    await user.click(screen.getByRole('button', { name: 'Age' }));
    expect(screen.getByRole('columnheader', { name: 'Age' }).getAttribute('aria-sort')).toBe('ascending');
    const ages = () =>
      within(screen.getByRole('table'))
        .getAllByRole('row')
        .slice(1)
        .map((r) => Number(r.children[1]!.textContent));
    expect(ages()).toEqual([...ages()].sort((a, b) => a - b));
    expect(ages()[0]).toBe(20);
    await user.click(screen.getByRole('button', { name: 'Age' }));
    expect(screen.getByRole('columnheader', { name: 'Age' }).getAttribute('aria-sort')).toBe('descending');
    expect(ages()[0]).toBe(99);
  });

  it('searches without case or accents, filters, and goes back to the first page', async () => {
    const user = userEvent.setup();
    render(<People rows={PEOPLE} />);
    await user.click(screen.getByRole('button', { name: 'Last page' }));
    await user.type(screen.getByRole('textbox', { name: 'Search people' }), 'JEROME');
    expect(names()).toEqual(['Zoë Jérôme']);
    expect(screen.queryByRole('navigation', { name: 'Pages of people' })).toBeNull();
    await user.clear(screen.getByRole('textbox', { name: 'Search people' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Team' }), 'red');
    // Persons 0, 3, … 57 and Zoë.
    expect(names()).toHaveLength(21);
    expect(names()).toContain('Person 57');
    expect(names()).not.toContain('Person 01');
    await user.type(screen.getByRole('textbox', { name: 'Search people' }), 'nobody');
    expect(screen.getByText('No people found')).toBeTruthy();
  });

  it('shows a loading row while the rows are on their way', () => {
    render(<People rows={undefined} query={{ ...loaded, isPending: true }} />);
    expect(screen.getByRole('status').textContent).toBe('Loading...');
    expect(names()).toHaveLength(1);
    expect(screen.queryByText('No people found')).toBeNull();
  });

  it('shows a failed request as an error with a retry, never as an empty list', async () => {
    const user = userEvent.setup();
    const refetch = vi.fn();
    const query = { isPending: false, isError: true, error: new Error('boom'), refetch };
    render(<People rows={PEOPLE} query={query} />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Failed to load people.');
    expect(screen.queryByText('No people found')).toBeNull();
    // The one row is the error: none of the rows held from before.
    expect(names()).toHaveLength(1);
    expect(screen.queryByText('Person 00')).toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('outside a table: an alert with the server’s reason, or what an empty list says', async () => {
    const user = userEvent.setup();
    const refetch = vi.fn();
    const error = new ApiError(403, '403: forbidden', 'You may not see this list', 'FORBIDDEN');
    const { rerender } = render(
      <ListStatus
        query={{ isPending: false, isError: true, error, refetch }}
        count={0}
        error="Your studies could not be loaded"
        retryLabel="Try again"
        empty={<p>No studies found</p>}
      />,
    );
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Your studies could not be loaded');
    expect(alert.textContent).toContain('You may not see this list');
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(refetch).toHaveBeenCalled();
    expect(screen.queryByText('No studies found')).toBeNull();
    rerender(<ListStatus query={loaded} count={0} error="x" empty={<p>No studies found</p>} />);
    expect(screen.getByText('No studies found')).toBeTruthy();
    rerender(<ListStatus query={loaded} count={3} error="x" empty={<p>No studies found</p>} />);
    expect(screen.queryByText('No studies found')).toBeNull();
  });

  it('renders the table where it fits and cards on a phone, never both', () => {
    let wide = true;
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches: wide && query === '(min-width: 1024px)',
      media: query,
      addEventListener() {},
      removeEventListener() {},
    }));
    const layout = (
      <ListLayout table={() => <table aria-label="Rows" />} cards={() => <ul aria-label="Cards" />} />
    );
    const { unmount } = render(layout);
    expect(screen.getByRole('table', { name: 'Rows' })).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Cards' })).toBeNull();
    unmount();
    wide = false;
    render(layout);
    expect(screen.queryByRole('table', { name: 'Rows' })).toBeNull();
    expect(screen.getByRole('list', { name: 'Cards' })).toBeTruthy();
  });
});

describe('the pager of a list that is not counted', () => {
  function Pages({ more }: { more: (page: number) => boolean }) {
    const [page, setPage] = useState(0);
    return <OpenEndedPager page={page} hasMore={more(page)} onPage={setPage} label="Audit log pages" />;
  }

  it('shows nothing while everything fits on the first page', () => {
    render(<Pages more={() => false} />);
    expect(screen.queryByRole('navigation', { name: 'Audit log pages' })).toBeNull();
  });

  it('goes forward while the server says there is more, and back to the first page', async () => {
    const user = userEvent.setup();
    render(<Pages more={(page) => page < 2} />);
    const pager = screen.getByRole('navigation', { name: 'Audit log pages' });
    expect(within(pager).getByText('Page 1')).toBeTruthy();
    expect(within(pager).getByRole('button', { name: 'Previous' })).toHaveProperty('disabled', true);
    await user.click(within(pager).getByRole('button', { name: 'Next' }));
    await user.click(within(pager).getByRole('button', { name: 'Next' }));
    expect(within(pager).getByText('Page 3')).toBeTruthy();
    expect(within(pager).getByRole('button', { name: 'Next' })).toHaveProperty('disabled', true);
    await user.click(within(pager).getByRole('button', { name: 'Previous' }));
    await user.click(within(pager).getByRole('button', { name: 'Previous' }));
    expect(within(pager).getByText('Page 1')).toBeTruthy();
  });
});
