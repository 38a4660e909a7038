import { AlertTriangle, RefreshCw } from 'lucide-react';
import type { ReactNode } from 'react';
import { ErrorBoundary } from 'react-error-boundary';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';

/**
 * Keeps a render error in one part of a page from taking the whole page down: that part shows what
 * failed and a 'Try again' that renders it afresh; the rest of the page (navigation, user menu)
 * keeps working. A change of `resetKeys` (another study, another visit of the page) also retries.
 * `actions` go beside 'Try again' (a way out, on a page without navigation).
 */
export function SectionErrorBoundary({
  title,
  description,
  resetKeys,
  actions,
  className,
  children,
}: {
  title: string;
  description: string;
  resetKeys?: unknown[];
  actions?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <ErrorBoundary
      resetKeys={resetKeys}
      fallbackRender={({ resetErrorBoundary }) => (
        <Alert variant="destructive" role="alert" className={className}>
          <AlertTriangle aria-hidden="true" />
          <div className="grid gap-2">
            <AlertTitle>{title}</AlertTitle>
            <AlertDescription>{description}</AlertDescription>
            <div className="flex flex-wrap gap-2">
              <Button variant="outline" size="sm" onClick={resetErrorBoundary}>
                <RefreshCw aria-hidden="true" /> Try again
              </Button>
              {actions}
            </div>
          </div>
        </Alert>
      )}
    >
      {children}
    </ErrorBoundary>
  );
}
