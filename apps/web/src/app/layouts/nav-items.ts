import {
  ClipboardCheck,
  CreditCard,
  FileImage,
  IdCard,
  Inbox,
  LayoutDashboard,
  Link2,
  type LucideIcon,
  Settings,
  ShieldCheck,
  Stethoscope,
  Store,
} from 'lucide-react';
import { paths } from '@/config/paths';

export interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
}

/** The sidebar's entries, in order. */
export const NAV_ITEMS: readonly NavItem[] = [
  { to: paths.home, label: 'Dashboard', icon: LayoutDashboard },
  { to: paths.studies, label: 'My Studies', icon: FileImage },
  { to: paths.links, label: 'Links', icon: Link2 },
  { to: paths.servicesAvailable, label: 'Available Services', icon: Store },
  { to: paths.servicesPurchased, label: 'Purchased Services', icon: ClipboardCheck },
  { to: paths.providers, label: 'Healthcare Providers', icon: Stethoscope },
  { to: paths.billing, label: 'Billing', icon: CreditCard },
  { to: paths.settings, label: 'Settings', icon: Settings },
];

export const ADMIN_NAV_ITEM: NavItem = { to: paths.admin, label: 'Admin', icon: ShieldCheck };

/** Professionals only: the orders sent to their linked providers. */
export const PROFESSIONAL_NAV_ITEM: NavItem = {
  to: paths.professionalOrders,
  label: 'My Orders',
  icon: Inbox,
};

/** Professionals only: their directory profile and offers (/professional/profile). */
export const PROFESSIONAL_PROFILE_NAV_ITEM: NavItem = {
  to: paths.professionalProfile,
  label: 'Directory Profile',
  icon: IdCard,
};
