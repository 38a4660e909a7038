import type { AdminUser } from '@mi/contracts/admin';
import { BYTES_PER_GB } from '@mi/contracts/rules';
import { Search, Users } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { ListPager } from '@/components/list/list-pager';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { EmptyState } from '@/components/empty-state';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate, formatDateTime } from '@/lib/format';
import { USERS_PAGE_SIZE, useAdminUsers, useUserAction } from '../api/admin-users';
import { ReauthCancelled } from '../../shared/components/reauth-provider';

const gb = (bytes: number) => {
  const v = bytes / BYTES_PER_GB;
  return v >= 10 ? v.toFixed(0) : v.toFixed(v === 0 ? 0 : 2);
};

const STATUS_VARIANT: Record<
  AdminUser['accountStatus'],
  'default' | 'secondary' | 'destructive' | 'outline'
> = {
  active: 'secondary',
  pending: 'outline',
  rejected: 'destructive',
  disabled: 'destructive',
};

function StatusBadge({ status }: { status: AdminUser['accountStatus'] }) {
  return <Badge variant={STATUS_VARIANT[status]}>{status[0]!.toUpperCase() + status.slice(1)}</Badge>;
}

/** Accounts: search by name or email, and manage one (status, second factor, quota). */
export function UsersAdmin() {
  const [draft, setDraft] = useState('');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const users = useAdminUsers(q, page);
  const list = users.data?.data ?? [];
  const pages = Math.max(1, Math.ceil((users.data?.total ?? 0) / USERS_PAGE_SIZE));
  const selected = list.find((u) => u.id === selectedId) ?? null;

  function search(e: FormEvent) {
    e.preventDefault();
    setQ(draft.trim());
    setPage(1);
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Users</CardTitle>
        <CardDescription>
          Search accounts, disable or enable them, reset a second factor, set quotas.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form role="search" onSubmit={search} className="flex gap-2">
          <Input
            aria-label="Search users by name or email"
            placeholder="Name or email"
            value={draft}
            maxLength={200}
            onChange={(e) => setDraft(e.target.value)}
          />
          <Button type="submit" variant="outline">
            <Search aria-hidden="true" /> Search
          </Button>
        </form>
        <ListStatus
          query={users}
          count={list.length}
          error="The users could not be loaded"
          empty={<EmptyState icon={Users} title="No users found" />}
        />
        {listStatus(users, list.length) === null && (
          <div className="relative overflow-x-auto rounded-md border">
            <table className="w-full text-sm">
              <thead className="bg-muted/50 text-left text-xs text-muted-foreground">
                <tr>
                  <th className="p-2 font-medium">User</th>
                  <th className="hidden p-2 font-medium sm:table-cell">Role</th>
                  <th className="p-2 font-medium">Status</th>
                  <th className="hidden p-2 font-medium md:table-cell">Last sign-in</th>
                  <th className="hidden p-2 font-medium md:table-cell">Storage</th>
                  <th className="p-2">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((u) => (
                  <tr key={u.id} className="border-t">
                    <td className="max-w-36 p-2 sm:max-w-56">
                      <div className="truncate font-medium">{u.name || '—'}</div>
                      <div className="truncate text-xs text-muted-foreground" title={u.email}>
                        {u.email}
                      </div>
                      {/* On a phone the role sits under the address: its column would push Manage off screen. */}
                      <div className="text-xs capitalize text-muted-foreground sm:hidden">{u.role}</div>
                    </td>
                    <td className="hidden p-2 capitalize sm:table-cell">{u.role}</td>
                    <td className="p-2">
                      <StatusBadge status={u.accountStatus} />
                    </td>
                    <td className="hidden p-2 text-xs md:table-cell">
                      {u.lastSignInAt ? formatDateTime(u.lastSignInAt) : 'Never'}
                    </td>
                    <td className="hidden p-2 text-xs md:table-cell">
                      {gb(u.usedStorageBytes)} / {gb(u.maxStorageBytes)} GB
                    </td>
                    <td className="p-2 text-right">
                      <Button
                        size="sm"
                        variant="outline"
                        aria-label={`Manage ${u.email}`}
                        onClick={() => setSelectedId(u.id)}
                      >
                        Manage
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <ListPager
          page={page - 1}
          pageCount={pages}
          pageSize={USERS_PAGE_SIZE}
          total={users.data?.total ?? 0}
          onPage={(next) => setPage(next + 1)}
          noun="Users"
          label="Users pages"
        />
      </CardContent>
      <UserDialog user={selected} onClose={() => setSelectedId(null)} />
    </Card>
  );
}

function UserDialog({ user, onClose }: { user: AdminUser | null; onClose: () => void }) {
  const action = useUserAction();
  const [confirm, setConfirm] = useState<'disable' | 'reset-mfa' | null>(null);
  const [quota, setQuota] = useState('');
  const [quotaError, setQuotaError] = useState<string | null>(null);

  const run = (input: Parameters<typeof action.mutate>[0]) =>
    action.mutate(input, {
      onSuccess: (res) => {
        toast({ title: res.message });
        setConfirm(null);
      },
      onError: (err) => toastError(err instanceof ReauthCancelled ? err.message : errorMessage(err)),
    });

  function saveQuota(e: FormEvent) {
    e.preventDefault();
    if (!user) return;
    const value = quota.trim();
    if (value === '') return run({ kind: 'quota', id: user.id, maxStorageGB: null });
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0.1 || n > 100_000) {
      setQuotaError('Enter a quota between 0.1 and 100000 GB, or leave it empty for the default');
      return;
    }
    setQuotaError(null);
    run({ kind: 'quota', id: user.id, maxStorageGB: n });
  }

  return (
    <Dialog
      open={user !== null}
      onOpenChange={(open) => {
        if (!open) {
          setConfirm(null);
          setQuota('');
          setQuotaError(null);
          onClose();
        }
      }}
    >
      <DialogContent className="max-h-[90vh] overflow-y-auto">
        {user && (
          <>
            <DialogHeader>
              <DialogTitle className="break-all">{user.name || user.email}</DialogTitle>
              <DialogDescription className="break-all">{user.email}</DialogDescription>
            </DialogHeader>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="text-muted-foreground">Role</dt>
              <dd className="capitalize">{user.role}</dd>
              <dt className="text-muted-foreground">Status</dt>
              <dd>
                <StatusBadge status={user.accountStatus} />
              </dd>
              <dt className="text-muted-foreground">Created</dt>
              <dd>{formatDate(user.createdAt)}</dd>
              <dt className="text-muted-foreground">Last sign-in</dt>
              <dd>{user.lastSignInAt ? formatDateTime(user.lastSignInAt) : 'Never'}</dd>
              <dt className="text-muted-foreground">Second factor</dt>
              <dd>
                {user.mfaEnabled
                  ? `On (${user.mfaMethod === 'totp' ? 'authenticator app' : 'email'})`
                  : 'Off'}
              </dd>
              <dt className="text-muted-foreground">Storage</dt>
              <dd>
                {gb(user.usedStorageBytes)} GB of {gb(user.maxStorageBytes)} GB
                {user.quotaOverride ? '' : ' (default)'}
              </dd>
            </dl>

            <form onSubmit={saveQuota} noValidate className="grid gap-2">
              <Label htmlFor="quota-gb">Storage quota (GB)</Label>
              <div className="flex gap-2">
                <Input
                  id="quota-gb"
                  inputMode="decimal"
                  placeholder={`${gb(user.maxStorageBytes)} (empty: default)`}
                  value={quota}
                  onChange={(e) => setQuota(e.target.value)}
                  aria-invalid={quotaError ? true : undefined}
                />
                <Button type="submit" variant="outline" disabled={action.isPending}>
                  Save quota
                </Button>
              </div>
              {quotaError && (
                <p role="alert" className="text-sm text-destructive">
                  {quotaError}
                </p>
              )}
            </form>

            {confirm && (
              <p role="alert" className="rounded-md bg-destructive/10 p-3 text-sm">
                {confirm === 'disable'
                  ? 'Disable this account? They cannot sign in, and their sessions, viewer links and uploads in progress end now.'
                  : 'Turn off their second factor? Their authenticator and recovery codes are removed and their sessions end.'}
              </p>
            )}
            <DialogFooter className="flex-wrap gap-2">
              {user.mfaEnabled &&
                (confirm === 'reset-mfa' ? (
                  <Button
                    variant="destructive"
                    disabled={action.isPending}
                    onClick={() => run({ kind: 'reset-mfa', id: user.id })}
                  >
                    Confirm reset
                  </Button>
                ) : (
                  <Button variant="outline" onClick={() => setConfirm('reset-mfa')}>
                    Reset second factor
                  </Button>
                ))}
              {user.accountStatus === 'disabled' ? (
                <Button disabled={action.isPending} onClick={() => run({ kind: 'enable', id: user.id })}>
                  Enable account
                </Button>
              ) : confirm === 'disable' ? (
                <Button
                  variant="destructive"
                  disabled={action.isPending}
                  onClick={() => run({ kind: 'disable', id: user.id })}
                >
                  Confirm disable
                </Button>
              ) : (
                user.role !== 'admin' && (
                  <Button variant="destructive" onClick={() => setConfirm('disable')}>
                    Disable account
                  </Button>
                )
              )}
            </DialogFooter>
          </>
        )}
      </DialogContent>
    </Dialog>
  );
}
