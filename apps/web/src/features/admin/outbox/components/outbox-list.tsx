import type { OutboxMessage } from '@mi/contracts/admin';
import { Inbox, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { EmptyState } from '@/components/empty-state';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { formatDateTime } from '@/lib/format';
import { cn } from '@/lib/utils';
import { useOutbox } from '../api/get-outbox';

/** Mail the server sent (the default mail adapter keeps an outbox instead of an SMTP server). */
export function OutboxList() {
  const outbox = useOutbox();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const messages = outbox.data ?? [];
  const selected = messages.find((m) => m.id === selectedId) ?? null;

  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
      <Card>
        <CardHeader className="flex-row items-center justify-between gap-2 space-y-0">
          <div>
            <CardTitle>Outbox</CardTitle>
            <CardDescription>Newest first. Select a message to read it.</CardDescription>
          </div>
          <Button variant="outline" size="sm" onClick={() => outbox.refetch()} disabled={outbox.isFetching}>
            <RefreshCw aria-hidden="true" className={cn(outbox.isFetching && 'animate-spin')} /> Refresh
          </Button>
        </CardHeader>
        <CardContent>
          <ListStatus
            query={outbox}
            count={messages.length}
            error="The outbox could not be loaded"
            empty={
              <EmptyState icon={Inbox} title="No messages">
                Messages the server sends will be listed here.
              </EmptyState>
            }
          />
          {listStatus(outbox, messages.length) === null && (
            <ul className="divide-y rounded-md border" aria-label="Outbox messages">
              {messages.map((m) => (
                <li key={m.id}>
                  <button
                    type="button"
                    onClick={() => setSelectedId(m.id)}
                    aria-current={m.id === selectedId ? 'true' : undefined}
                    className={cn(
                      'grid w-full gap-0.5 px-3 py-2.5 text-left text-sm hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-inset focus-visible:ring-ring',
                      m.id === selectedId && 'bg-accent',
                    )}
                  >
                    <span className="truncate font-medium">{m.subject}</span>
                    <span className="flex flex-wrap justify-between gap-x-3 text-xs text-muted-foreground">
                      <span className="truncate">To: {m.to}</span>
                      <time dateTime={m.createdAt}>{formatDateTime(m.createdAt)}</time>
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </CardContent>
      </Card>
      <Card>
        {selected ? (
          <MessageView key={selected.id} message={selected} />
        ) : (
          <CardContent className="p-6 text-sm text-muted-foreground">No message selected.</CardContent>
        )}
      </Card>
    </div>
  );
}

function MessageView({ message }: { message: OutboxMessage }) {
  const [view, setView] = useState<'text' | 'html'>('text');
  return (
    <>
      <CardHeader>
        <CardTitle className="break-words">{message.subject}</CardTitle>
        <CardDescription>
          To {message.to} · <time dateTime={message.createdAt}>{formatDateTime(message.createdAt)}</time>
        </CardDescription>
        <div className="flex gap-2 pt-2" role="group" aria-label="Message format">
          <Button
            size="sm"
            variant={view === 'text' ? 'default' : 'outline'}
            aria-pressed={view === 'text'}
            onClick={() => setView('text')}
          >
            Text
          </Button>
          <Button
            size="sm"
            variant={view === 'html' ? 'default' : 'outline'}
            aria-pressed={view === 'html'}
            onClick={() => setView('html')}
            disabled={!message.html}
          >
            HTML
          </Button>
        </div>
      </CardHeader>
      <CardContent>
        {view === 'text' ? (
          <pre className="max-h-[60vh] overflow-auto whitespace-pre-wrap break-words rounded-md bg-muted p-4 font-sans text-sm">
            {message.text}
          </pre>
        ) : (
          // Mail HTML is untrusted: an empty sandbox gives it no scripts, forms, popups or same-origin access.
          <iframe
            title={`HTML body of "${message.subject}"`}
            sandbox=""
            referrerPolicy="no-referrer"
            srcDoc={message.html}
            className="h-[60vh] w-full rounded-md border bg-white"
          />
        )}
      </CardContent>
    </>
  );
}
