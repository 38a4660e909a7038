import {
  ClipboardCheck,
  CreditCard,
  FileImage,
  LayoutDashboard,
  type LucideIcon,
  Settings,
  ShieldCheck,
  Stethoscope,
  Store,
} from 'lucide-react';

export interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
}

/** Spec §2 sidebar, in order. */
export const NAV_ITEMS: readonly NavItem[] = [
  { to: '/', label: 'Dashboard', icon: LayoutDashboard },
  { to: '/studies', label: 'My Studies', icon: FileImage },
  { to: '/services/available', label: 'Available Services', icon: Store },
  { to: '/services/purchased', label: 'Purchased Services', icon: ClipboardCheck },
  { to: '/providers', label: 'Healthcare Providers', icon: Stethoscope },
  { to: '/billing', label: 'Billing', icon: CreditCard },
  { to: '/settings', label: 'Settings', icon: Settings },
];

export const ADMIN_NAV_ITEM: NavItem = { to: '/admin', label: 'Admin', icon: ShieldCheck };
