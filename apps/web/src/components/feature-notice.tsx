import { Info } from 'lucide-react';
import type { ReactNode } from 'react';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';

/** An honest note that a feature has not been built yet. Pages never show sample data instead. */
export function FeatureNotice({
  title = 'Not available yet',
  children,
}: {
  title?: string;
  children: ReactNode;
}) {
  return (
    <Alert variant="info" role="note">
      <Info aria-hidden="true" />
      <div className="grid gap-1">
        <AlertTitle>{title}</AlertTitle>
        <AlertDescription>{children}</AlertDescription>
      </div>
    </Alert>
  );
}
