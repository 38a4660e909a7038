import { Home } from 'lucide-react';
import { Suspense } from 'react';
import { Link, Outlet } from 'react-router';
import { Brand } from '@/components/brand';
import { FullPageSpinner } from '@/components/full-page-spinner';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { SkipLink } from './skip-link';

/** Help centre: public-style layout with a 'Return to Home' button. */
export function HelpLayout() {
  return (
    <div className="flex min-h-full flex-col">
      <SkipLink />
      <header className="sticky top-0 z-40 flex h-16 items-center gap-3 border-b bg-card/95 px-3 backdrop-blur sm:px-6">
        <Brand version className="min-w-0 truncate" />
        <Button asChild variant="outline" size="sm" className="ml-auto shrink-0">
          <Link to={paths.home}>
            {/* On a phone the button says 'Home', so the app's name beside it fits whole. */}
            <Home aria-hidden="true" /> <span className="sr-only sm:not-sr-only">Return to </span>Home
          </Link>
        </Button>
      </header>
      <main id="main-content" tabIndex={-1} className="flex-1 p-4 focus:outline-none sm:p-6 lg:p-8">
        <div className="mx-auto max-w-6xl">
          <Suspense fallback={<FullPageSpinner />}>
            <Outlet />
          </Suspense>
        </div>
      </main>
    </div>
  );
}
