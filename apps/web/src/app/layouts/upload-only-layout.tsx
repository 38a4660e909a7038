import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { Brand } from '@/components/brand';
import { FullPageSpinner } from '@/components/full-page-spinner';
import { SkipLink } from './skip-link';
import { UserMenu } from './user-menu';

/** /uploadOnly: the upload page without sidebar; the user menu has identity and Logout only. */
export function UploadOnlyLayout() {
  return (
    <div className="flex min-h-full flex-col">
      <SkipLink />
      <header className="sticky top-0 z-40 flex h-16 items-center gap-3 border-b bg-card/95 px-3 backdrop-blur sm:px-6">
        <Brand version className="min-w-0 truncate" />
        <div className="ml-auto">
          <UserMenu minimal />
        </div>
      </header>
      <main id="main-content" tabIndex={-1} className="flex-1 p-4 focus:outline-none sm:p-6 lg:p-8">
        <div className="mx-auto max-w-4xl">
          <Suspense fallback={<FullPageSpinner />}>
            <Outlet />
          </Suspense>
        </div>
      </main>
    </div>
  );
}
