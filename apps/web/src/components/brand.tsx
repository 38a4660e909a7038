import { Activity } from 'lucide-react';
import { Link } from 'react-router';
import { paths } from '@/config/paths';
import { cn } from '@/lib/utils';

/** The product mark. `version` adds the 'v3.0' the signed-in header shows. */
export function Brand({ version = false, className }: { version?: boolean; className?: string }) {
  return (
    <Link
      to={paths.home}
      className={cn(
        'flex items-center gap-2 rounded-md font-semibold tracking-tight text-foreground focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring',
        className,
      )}
    >
      <span className="flex size-8 items-center justify-center rounded-md bg-primary text-primary-foreground">
        <Activity className="size-5" aria-hidden="true" />
      </span>
      <span>{version ? 'Medical Imaging v3.0' : 'Medical Imaging'}</span>
    </Link>
  );
}
