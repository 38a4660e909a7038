import { Code2, Link2, QrCode } from 'lucide-react';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card, CardContent } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs';
import { errorMessage } from '@/lib/api-client';
import { useInviteLink } from '../api/get-invite-link';
import { DirectUrlPanel } from './direct-url-panel';
import { QrCodePanel } from './qr-code-panel';
import { WidgetPanel } from './widget-panel';

/**
 * The Share & Embed page's body: the user's invite link as a QR code, an embeddable widget and a
 * plain URL. Uploads through the link go into the user's account.
 */
export function ShareEmbed() {
  const link = useInviteLink();

  if (link.isPending)
    return (
      <div className="flex justify-center p-10">
        <Spinner label="Loading your invite link" />
      </div>
    );
  if (link.isError)
    return (
      <Alert variant="destructive">
        <div className="grid gap-1">
          <AlertTitle>Your invite link could not be loaded</AlertTitle>
          <AlertDescription className="grid gap-3">
            <span>{errorMessage(link.error)}</span>
            <span>
              <Button variant="outline" size="sm" onClick={() => void link.refetch()}>
                Try again
              </Button>
            </span>
          </AlertDescription>
        </div>
      </Alert>
    );

  const { url, expiresAt } = link.data;
  return (
    <Tabs defaultValue="qr" className="grid gap-4">
      <TabsList className="w-full sm:w-auto">
        <TabsTrigger value="qr" className="flex-1 px-2 text-xs sm:flex-none sm:px-3 sm:text-sm">
          <QrCode aria-hidden="true" className="hidden size-4 sm:block" /> QR Code
        </TabsTrigger>
        <TabsTrigger value="widget" className="flex-1 px-2 text-xs sm:flex-none sm:px-3 sm:text-sm">
          <Code2 aria-hidden="true" className="hidden size-4 sm:block" /> Embeddable Widget
        </TabsTrigger>
        <TabsTrigger value="url" className="flex-1 px-2 text-xs sm:flex-none sm:px-3 sm:text-sm">
          <Link2 aria-hidden="true" className="hidden size-4 sm:block" /> Direct URL
        </TabsTrigger>
      </TabsList>
      <Card>
        <CardContent className="p-4 sm:p-6">
          <TabsContent value="qr" className="mt-0">
            <QrCodePanel url={url} />
          </TabsContent>
          <TabsContent value="widget" className="mt-0">
            <WidgetPanel url={url} />
          </TabsContent>
          <TabsContent value="url" className="mt-0">
            <DirectUrlPanel url={url} expiresAt={expiresAt} />
          </TabsContent>
        </CardContent>
      </Card>
    </Tabs>
  );
}
