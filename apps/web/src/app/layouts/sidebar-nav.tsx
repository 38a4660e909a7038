import { NavLink } from 'react-router';
import { paths } from '@/config/paths';
import { cn } from '@/lib/utils';
import { ADMIN_NAV_ITEM, NAV_ITEMS, PROFESSIONAL_NAV_ITEM, PROFESSIONAL_PROFILE_NAV_ITEM } from './nav-items';

/** The main navigation list, used by the desktop sidebar and the phone drawer. */
export function SidebarNav({
  isAdmin,
  isProfessional = false,
  onNavigate,
}: {
  isAdmin: boolean;
  isProfessional?: boolean;
  onNavigate?: () => void;
}) {
  const items = [
    ...NAV_ITEMS.slice(0, 1),
    ...(isProfessional ? [PROFESSIONAL_NAV_ITEM, PROFESSIONAL_PROFILE_NAV_ITEM] : []),
    ...NAV_ITEMS.slice(1),
    ...(isAdmin ? [ADMIN_NAV_ITEM] : []),
  ];
  return (
    <nav aria-label="Main">
      <ul className="grid gap-1">
        {items.map(({ to, label, icon: Icon }) => (
          <li key={to}>
            <NavLink
              to={to}
              end={to === paths.home}
              onClick={onNavigate}
              className={({ isActive }) =>
                cn(
                  'flex items-center gap-3 rounded-md px-3 py-2 text-sm font-medium text-muted-foreground transition-colors',
                  'hover:bg-accent hover:text-accent-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
                  isActive && 'bg-accent text-accent-foreground',
                )
              }
            >
              <Icon className="size-4 shrink-0" aria-hidden="true" />
              {label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
