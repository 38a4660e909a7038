// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, renderHook, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { useAdminMutation } from '../src/features/admin/shared/api/admin-mutation';
import { changeRecord, saveRecord } from '../src/features/admin/shared/api/record-changes';
import { FormDialog, recordFormKey } from '../src/features/admin/shared/components/form-dialog';
import {
  EditButton,
  RefreshButton,
  RestoreButton,
  RetireButton,
} from '../src/features/admin/shared/components/list-actions';
import { ReauthProvider } from '../src/features/admin/shared/components/reauth-provider';
import { savedToasts } from '../src/features/admin/shared/utils/change-toasts';
import { watchToasts } from './toasts';
import { answer, stubFetch } from './network';

const fetchMock = stubFetch();

describe('FormDialog', () => {
  function renderDialog(over: Partial<Parameters<typeof FormDialog>[0]> = {}) {
    const onClose = vi.fn();
    const onSubmit = vi.fn((e: { preventDefault: () => void }) => e.preventDefault());
    render(
      <FormDialog
        open
        onClose={onClose}
        onSubmit={onSubmit}
        title="New Service"
        description="Shown to users."
        submitLabel="Create Service"
        pending={false}
        {...over}
      >
        <label>
          Name <input name="name" />
        </label>
      </FormDialog>,
    );
    return { onClose, onSubmit };
  }

  it('is a named dialog holding one form: the fields, then Cancel and the submit button', () => {
    renderDialog();
    const dialog = screen.getByRole('dialog', { name: 'New Service' });
    const describedBy = dialog.getAttribute('aria-describedby')!;
    expect(document.getElementById(describedBy)?.textContent).toBe('Shown to users.');
    const form = dialog.querySelector('form')!;
    expect(form.noValidate).toBe(true);
    expect(form.contains(screen.getByLabelText('Name'))).toBe(true);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Cancel' }).type).toBe('button');
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Create Service' }).type).toBe('submit');
  });

  it('submits the form, and closes on Cancel and on Escape', async () => {
    const user = userEvent.setup();
    const { onClose, onSubmit } = renderDialog();
    await user.click(screen.getByRole('button', { name: 'Create Service' }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onClose).toHaveBeenCalledTimes(1);
    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it('holds the submit button while the change is pending', () => {
    renderDialog({ pending: true, submitVariant: 'destructive' });
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Create Service' }).disabled).toBe(true);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Cancel' }).disabled).toBe(false);
  });

  it('shows nothing while closed', () => {
    renderDialog({ open: false });
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('recordFormKey', () => {
  it('gives a closed dialog, a new record and each record its own key', () => {
    expect(recordFormKey(null)).toBe('closed');
    expect(recordFormKey('new')).toBe('new');
    expect(recordFormKey({ id: 'svc-1' })).toBe('svc-1');
  });
});

describe('list actions', () => {
  it('Refresh refetches, and waits while a fetch runs', async () => {
    const user = userEvent.setup();
    const refetch = vi.fn();
    const { rerender } = render(<RefreshButton query={{ refetch, isFetching: false }} />);
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(refetch).toHaveBeenCalledTimes(1);
    rerender(<RefreshButton query={{ refetch, isFetching: true }} />);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Refresh' }).disabled).toBe(true);
  });

  it('names Edit by its record, and Retire and Restore as their screen says', async () => {
    const user = userEvent.setup();
    const onEdit = vi.fn();
    const onRetire = vi.fn();
    render(
      <>
        <EditButton name="MRI review" onClick={onEdit} />
        <RetireButton aria-label="Retire offer of Acme" className="h-10" onClick={onRetire} />
        <RestoreButton disabled />
      </>,
    );
    await user.click(screen.getByRole('button', { name: 'Edit MRI review' }));
    expect(onEdit).toHaveBeenCalledTimes(1);
    const retire = screen.getByRole('button', { name: 'Retire offer of Acme' });
    expect(retire.classList).toContain('h-10');
    expect(retire.classList).toContain('text-destructive');
    await user.click(retire);
    expect(onRetire).toHaveBeenCalledTimes(1);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Restore' }).disabled).toBe(true);
  });
});

describe('record changes', () => {
  it('sends create, update, retire and restore to the routes of the list', async () => {
    fetchMock.mockImplementation(async () => answer(200, { message: 'ok', data: { name: 'X' } }));
    const base = '/api/admin/services';
    await changeRecord(base, { kind: 'create', input: { name: 'X' } });
    await changeRecord(base, { kind: 'update', id: 'a/b', input: { name: 'Y' } });
    await changeRecord(base, { kind: 'retire', id: 'a/b' });
    await changeRecord(base, { kind: 'restore', id: 'a/b' });
    const calls = fetchMock.mock.calls.map(([url, init]) => [url, init?.method, init?.body]);
    expect(calls).toEqual([
      [base, 'POST', JSON.stringify({ name: 'X' })],
      [`${base}/a%2Fb`, 'PUT', JSON.stringify({ name: 'Y' })],
      [`${base}/a%2Fb/retire`, 'POST', undefined],
      [`${base}/a%2Fb/restore`, 'POST', undefined],
    ]);
  });

  it('saves a new record by creating it and an edited one by updating it', () => {
    expect(saveRecord('new', { name: 'X' })).toEqual({ kind: 'create', input: { name: 'X' } });
    expect(saveRecord({ id: 'p1' }, { name: 'X' })).toEqual({
      kind: 'update',
      id: 'p1',
      input: { name: 'X' },
    });
  });
});

describe('savedToasts', () => {
  it('names the saved record in the toast, then calls onSaved', () => {
    const toasts = watchToasts();
    act(() => toasts.clear());
    const onSaved = vi.fn();
    act(() => savedToasts('Service created', onSaved).onSuccess({ data: { name: 'MRI review' } }));
    expect(toasts.shown).toEqual({ title: 'Service created', description: 'MRI review', variant: undefined });
    expect(onSaved).toHaveBeenCalledTimes(1);
  });

  it("shows the server's message when the change fails", () => {
    const toasts = watchToasts();
    act(() => toasts.clear());
    act(() =>
      savedToasts('Service created').onError(
        new ApiError(409, '409: taken', 'The name is taken', 'CONFLICT'),
      ),
    );
    expect(toasts.shown).toEqual({
      title: 'Error',
      description: 'The name is taken',
      variant: 'destructive',
    });
  });
});

describe('useAdminMutation', () => {
  function setup<V, A>(run: (v: V) => Promise<A>) {
    const client = new QueryClient({
      defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
    });
    const invalidate = vi.spyOn(client, 'invalidateQueries');
    const wrapper = ({ children }: { children: ReactNode }) => (
      <QueryClientProvider client={client}>
        <ReauthProvider>{children}</ReauthProvider>
      </QueryClientProvider>
    );
    const hook = renderHook(() => useAdminMutation(run, [['/api/a'], ['/api/b']]), { wrapper });
    return { hook, invalidate };
  }

  it('refetches every query it names, whether the change worked or not', async () => {
    const run = vi.fn(async (ok: boolean) => {
      if (!ok) throw new ApiError(400, '400: no', 'No', 'VALIDATION_ERROR');
      return 'done';
    });
    const { hook, invalidate } = setup(run);
    await act(() => hook.result.current.mutateAsync(true));
    expect(invalidate.mock.calls.map(([filters]) => filters?.queryKey)).toEqual([['/api/a'], ['/api/b']]);
    invalidate.mockClear();
    await act(() => hook.result.current.mutateAsync(false).catch(() => undefined));
    expect(invalidate.mock.calls.map(([filters]) => filters?.queryKey)).toEqual([['/api/a'], ['/api/b']]);
  });

  it('asks for the password when the sign-in is stale, then runs the change again', async () => {
    const user = userEvent.setup();
    let stale = true;
    const run = vi.fn(async () => {
      if (stale) throw new ApiError(403, '403: stale', 'Sign in again', 'REAUTH_REQUIRED');
      return 'done';
    });
    fetchMock.mockImplementation(async () => {
      stale = false;
      return answer(200, { status: 'ok', message: 'ok', authToken: 't', refreshToken: 'r' });
    });
    const { hook } = setup(run);
    act(() => hook.result.current.mutate(undefined));
    const dialog = await screen.findByRole('dialog', { name: "Confirm it's you" });
    await user.type(screen.getByLabelText('Password'), 'secret');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(hook.result.current.data).toBe('done'));
    expect(run).toHaveBeenCalledTimes(2);
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/admin/reauth');
    expect(dialog.isConnected).toBe(false);
  });
});
