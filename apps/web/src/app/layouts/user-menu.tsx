import { Bell, ChevronDown, HelpCircle, LogOut, Share2, UserPlus } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu';
import { paths } from '@/config/paths';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { useLogout } from '@/features/auth/api/logout';
import { UnreadCountBadge } from '@/features/notifications/components/unread-count-badge';
import { initials } from '@/lib/user-name';

// Loaded when first opened: its form and validation (react-hook-form, zod) stay out of the first load.
const InviteUserDialog = lazy(() =>
  import('@/features/invitations/components/invite-user-dialog').then((m) => ({
    default: m.InviteUserDialog,
  })),
);

function Avatar({ name }: { name: string | null }) {
  return (
    <span
      aria-hidden="true"
      className="flex size-9 shrink-0 items-center justify-center rounded-full bg-primary text-sm font-semibold text-primary-foreground"
    >
      {initials(name)}
    </span>
  );
}

/**
 * The user menu: avatar initials, name or 'User', email; Notifications, Help, Invite User,
 * Share, Logout. `minimal` (the /uploadOnly page) keeps only the identity and Logout.
 */
export function UserMenu({ minimal = false }: { minimal?: boolean }) {
  const user = useCurrentUser();
  const logout = useLogout();
  const [inviteOpen, setInviteOpen] = useState(false);
  const displayName = user.name?.trim() || 'User';

  return (
    <>
      <DropdownMenu>
        <DropdownMenuTrigger className="flex items-center gap-2 rounded-full p-0.5 pr-1 hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring sm:rounded-md sm:pr-2">
          {/* Named by its text (the user's name, hidden on a phone but still read) and what it opens. */}
          <Avatar name={user.name} />
          <span className="sr-only text-sm font-medium sm:not-sr-only sm:block sm:max-w-40 sm:truncate">
            {displayName}
          </span>
          <span className="sr-only"> user menu</span>
          <ChevronDown className="hidden size-4 text-muted-foreground sm:block" aria-hidden="true" />
        </DropdownMenuTrigger>
        <DropdownMenuContent align="end" className="w-64">
          <DropdownMenuLabel className="flex items-center gap-3">
            <Avatar name={user.name} />
            <span className="grid min-w-0">
              <span className="truncate font-medium">{displayName}</span>
              <span className="truncate text-xs font-normal text-muted-foreground">{user.email}</span>
            </span>
          </DropdownMenuLabel>
          <DropdownMenuSeparator />
          {!minimal && (
            <>
              <DropdownMenuItem asChild>
                <Link to={paths.home}>
                  <Bell aria-hidden="true" /> Notifications
                  <UnreadCountBadge />
                </Link>
              </DropdownMenuItem>
              <DropdownMenuItem asChild>
                <Link to={paths.help}>
                  <HelpCircle aria-hidden="true" /> Help
                </Link>
              </DropdownMenuItem>
              <DropdownMenuItem onSelect={() => setInviteOpen(true)}>
                <UserPlus aria-hidden="true" /> Invite User
              </DropdownMenuItem>
              <DropdownMenuItem asChild>
                <Link to={paths.share}>
                  <Share2 aria-hidden="true" /> Share
                </Link>
              </DropdownMenuItem>
              <DropdownMenuSeparator />
            </>
          )}
          <DropdownMenuItem
            disabled={logout.isPending}
            onSelect={() => logout.mutate({ reason: 'manual' })}
            className="text-destructive focus:bg-destructive/10 focus:text-destructive"
          >
            <LogOut aria-hidden="true" /> Logout
          </DropdownMenuItem>
        </DropdownMenuContent>
      </DropdownMenu>
      {!minimal && inviteOpen && (
        <Suspense fallback={null}>
          <InviteUserDialog open={inviteOpen} onOpenChange={setInviteOpen} />
        </Suspense>
      )}
    </>
  );
}
