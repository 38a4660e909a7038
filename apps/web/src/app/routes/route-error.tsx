import { useRouteError } from 'react-router';
import { Button } from '@/components/ui/button';

/** Last-resort screen for a render error or a page chunk that failed to load (e.g. after a deploy). */
export function RouteError() {
  const error = useRouteError();
  if (import.meta.env.DEV) console.error(error);
  return (
    <div className="flex min-h-full items-center justify-center p-6">
      <div role="alert" className="grid max-w-sm gap-3 text-center">
        <h1 className="text-lg font-semibold">Something went wrong</h1>
        <p className="text-sm text-muted-foreground">Reload the page to try again.</p>
        <Button onClick={() => window.location.reload()}>Reload</Button>
      </div>
    </div>
  );
}
