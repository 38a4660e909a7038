import { Menu } from 'lucide-react';
import { Suspense, useState } from 'react';
import { Outlet } from 'react-router';
import { Brand } from '@/components/brand';
import { Button } from '@/components/ui/button';
import { Sheet, SheetContent, SheetDescription, SheetTitle, SheetTrigger } from '@/components/ui/sheet';
import { Spinner } from '@/components/ui/spinner';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { EmailVerificationBanner } from '@/features/auth/components/email-verification-banner';
import { SidebarNav } from './sidebar-nav';
import { SkipLink } from './skip-link';
import { UserMenu } from './user-menu';

/** Signed-in shell: top bar with the user menu, left sidebar, page content. */
export function MainLayout() {
  const user = useCurrentUser();
  const isAdmin = user.role === 'admin';
  const isProfessional = user.role === 'professional';
  const [drawerOpen, setDrawerOpen] = useState(false);

  return (
    <div className="flex min-h-full flex-col">
      <SkipLink />
      <header className="sticky top-0 z-40 flex h-16 items-center gap-3 border-b bg-card/95 px-3 backdrop-blur sm:px-6">
        <Sheet open={drawerOpen} onOpenChange={setDrawerOpen}>
          <SheetTrigger asChild>
            <Button variant="ghost" size="icon" className="md:hidden" aria-label="Open navigation menu">
              <Menu className="size-5" aria-hidden="true" />
            </Button>
          </SheetTrigger>
          <SheetContent>
            <SheetTitle className="px-3 pt-1 text-base font-semibold">Medical Imaging v3.0</SheetTitle>
            <SheetDescription className="sr-only">
              Navigate between sections of the application.
            </SheetDescription>
            <SidebarNav
              isAdmin={isAdmin}
              isProfessional={isProfessional}
              onNavigate={() => setDrawerOpen(false)}
            />
          </SheetContent>
        </Sheet>
        <Brand version className="min-w-0 truncate" />
        <div className="ml-auto">
          <UserMenu />
        </div>
      </header>
      <div className="flex flex-1">
        <aside className="hidden w-64 shrink-0 border-r bg-card md:block">
          <div className="sticky top-16 max-h-[calc(100dvh-4rem)] overflow-y-auto p-4">
            <SidebarNav isAdmin={isAdmin} isProfessional={isProfessional} />
          </div>
        </aside>
        <main id="main-content" tabIndex={-1} className="min-w-0 flex-1 p-4 focus:outline-none sm:p-6 lg:p-8">
          <div className="mx-auto max-w-6xl">
            <EmailVerificationBanner user={user} />
            <Suspense
              fallback={
                <div className="flex justify-center py-16">
                  <Spinner className="size-6" />
                </div>
              }
            >
              <Outlet />
            </Suspense>
          </div>
        </main>
      </div>
    </div>
  );
}
