import { LINK_RECIPIENT_MAX } from '@mi/contracts/links';
import { Activity, CircleAlert, Clock, LinkIcon } from 'lucide-react';
import { useCallback, useId, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { useDocumentTitle } from '@/components/page-header';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FieldError } from '@/components/ui/field-error';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { PasswordInput } from '@/components/ui/password-input';
import { formatDate, formatDateTime } from '@/lib/format';
import { fetchShlFiles, ShlError } from '../api/shl-client';
import { readShlBundle, type ShlContent } from '../utils/bundle';
import { decryptShlFile } from '../utils/decrypt';
import { isExpired, parseShlink, type ShlPayload } from '../utils/shlink';
import { ShlStudyCard, ShlReportView } from './shl-study-card';

export const LINK_ENDED_MESSAGE = 'This link has expired, was revoked or does not exist.';

function Shell({ children }: { children: ReactNode }) {
  return (
    <div className="min-h-full bg-background">
      <header className="border-b bg-card">
        <div className="mx-auto flex max-w-4xl items-center gap-2 px-4 py-3 font-semibold tracking-tight">
          <span className="flex size-8 items-center justify-center rounded-md bg-primary text-primary-foreground">
            <Activity className="size-5" aria-hidden="true" />
          </span>
          Medical Imaging
        </div>
      </header>
      <main className="mx-auto grid max-w-4xl gap-4 px-4 py-6">{children}</main>
    </div>
  );
}

function Ended() {
  return (
    <Alert variant="destructive" role="alert">
      <CircleAlert className="size-4" aria-hidden="true" />
      <div className="grid gap-1">
        <AlertTitle>The studies can no longer be opened</AlertTitle>
        <AlertDescription>{LINK_ENDED_MESSAGE}</AlertDescription>
      </div>
    </Alert>
  );
}

/** The link's label and kind, and until when it opens (left out once it has ended). */
function LinkHeading({ payload, ended = false }: { payload: ShlPayload; ended?: boolean }) {
  return (
    <div className="grid gap-1">
      <h1 className="text-xl font-semibold tracking-tight [overflow-wrap:anywhere]">
        {payload.label || 'Shared medical images'}
      </h1>
      <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-muted-foreground">
        <span className="inline-flex items-center gap-1.5">
          <LinkIcon className="size-4" aria-hidden="true" />
          {payload.flag.includes('U') ? 'Check-in link' : 'Shared by the patient'}
        </span>
        {payload.exp !== undefined && !ended && (
          <span className="inline-flex items-center gap-1.5">
            <Clock className="size-4" aria-hidden="true" /> Available until{' '}
            {formatDateTime(payload.exp * 1000)}
          </span>
        )}
      </p>
    </div>
  );
}

function passcodeMessage(left: number | null): string {
  if (left === null) return 'Wrong passcode.';
  if (left <= 0) return 'Wrong passcode. No attempts left: this link no longer opens.';
  return `Wrong passcode. ${left} ${left === 1 ? 'attempt' : 'attempts'} left.`;
}

type Phase =
  | { name: 'form' }
  | { name: 'loading' }
  | { name: 'ready'; content: ShlContent; headers: Record<string, string> }
  | { name: 'ended' };

/**
 * The name a recipient gave when a link last opened on this device, offered again next time (the
 * passcode never is: it stays with whoever was given it).
 */
const RECIPIENT_KEY = 'shl.recipient';
function rememberedRecipient(): string {
  try {
    return window.localStorage.getItem(RECIPIENT_KEY) ?? '';
  } catch {
    return '';
  }
}
function rememberRecipient(name: string): void {
  try {
    window.localStorage.setItem(RECIPIENT_KEY, name);
  } catch {
    // Without storage the name is asked again next time.
  }
}

/**
 * /shl#shlink:/…: a study link opened by whoever holds it, no account needed. Asks the recipient's
 * name (the patient sees it) and the passcode when the link has one, fetches the encrypted bundle,
 * decrypts it here with the key from the fragment, and shows the patient, the studies, their
 * reports, 'Open images' and 'Download'.
 */
export function ShlPage({ fragment = window.location.hash }: { fragment?: string }) {
  useDocumentTitle('Shared studies');
  const id = useId();
  const payload = useMemo(() => parseShlink(fragment), [fragment]);
  const [phase, setPhase] = useState<Phase>(() =>
    payload && isExpired(payload) ? { name: 'ended' } : { name: 'form' },
  );
  const [recipient, setRecipient] = useState(rememberedRecipient);
  const [passcode, setPasscode] = useState('');
  const [askPasscode, setAskPasscode] = useState(() => payload?.flag.includes('P') ?? false);
  const [errors, setErrors] = useState<{ recipient?: string; passcode?: string; form?: string }>({});
  const ended = useCallback(() => setPhase({ name: 'ended' }), []);

  if (!payload) {
    return (
      <Shell>
        <Alert variant="destructive" role="alert">
          <CircleAlert className="size-4" aria-hidden="true" />
          <div className="grid gap-1">
            <AlertTitle>This link is incomplete</AlertTitle>
            <AlertDescription>
              Open the whole link you were sent, or scan the QR code again. If it still fails, ask the person
              who shared it for a new one.
            </AlertDescription>
          </div>
        </Alert>
      </Shell>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const name = recipient.trim();
    const next: typeof errors = {};
    if (!name) next.recipient = 'Enter your name.';
    else if (name.length > LINK_RECIPIENT_MAX)
      next.recipient = `Use at most ${LINK_RECIPIENT_MAX} characters.`;
    if (askPasscode && !passcode) next.passcode = 'Enter the passcode you were given.';
    setErrors(next);
    if (next.recipient || next.passcode) return;
    setPhase({ name: 'loading' });
    try {
      const files = await fetchShlFiles(payload, name, askPasscode ? passcode : undefined);
      let content: ShlContent | null = null;
      try {
        for (const jwe of files) {
          const read = readShlBundle(await decryptShlFile(jwe, payload.key));
          content = content
            ? {
                patient: content.patient ?? read.patient,
                studies: [...content.studies, ...read.studies],
                otherReports: [...content.otherReports, ...read.otherReports],
              }
            : read;
        }
      } catch {
        setErrors({
          form: 'The shared data could not be read. The link may be damaged: ask the person who shared it for a new one.',
        });
        setPhase({ name: 'form' });
        return;
      }
      if (!content) {
        setErrors({ form: 'This link holds no studies.' });
        setPhase({ name: 'form' });
        return;
      }
      const headers = content.studies.find((s) => s.endpoint)?.endpoint?.headers ?? {};
      rememberRecipient(name);
      setPhase({ name: 'ready', content, headers });
    } catch (err) {
      const failure = err instanceof ShlError ? err.failure : ({ kind: 'failed', status: 0 } as const);
      if (failure.kind === 'ended') {
        setPhase({ name: 'ended' });
        return;
      }
      setPhase({ name: 'form' });
      if (failure.kind === 'passcode') {
        setAskPasscode(true);
        setPasscode('');
        if (failure.remainingAttempts !== null && failure.remainingAttempts <= 0) {
          setPhase({ name: 'ended' });
          return;
        }
        setErrors({
          passcode:
            passcode || askPasscode
              ? passcodeMessage(failure.remainingAttempts)
              : 'This link needs a passcode.',
        });
      } else if (failure.kind === 'rate-limited') {
        setErrors({ form: 'Too many tries in a short time. Wait a minute, then try again.' });
      } else {
        setErrors({ form: 'The studies could not be loaded. Check your connection and try again.' });
      }
    }
  };

  if (phase.name === 'ended') {
    return (
      <Shell>
        <LinkHeading payload={payload} ended />
        <Ended />
      </Shell>
    );
  }

  if (phase.name === 'ready') {
    const { content, headers } = phase;
    return (
      <Shell>
        <LinkHeading payload={payload} />
        {content.patient && (
          <Card className="grid gap-1 p-4">
            <h2 className="text-sm font-medium text-muted-foreground">Patient</h2>
            <p className="text-lg font-semibold [overflow-wrap:anywhere]">
              {content.patient.name || 'Name not given'}
            </p>
            {content.patient.birthDate && (
              <p className="text-sm">
                Born {formatDate(content.patient.birthDate) || content.patient.birthDate}
              </p>
            )}
          </Card>
        )}
        <section aria-labelledby={`${id}-studies`} className="grid gap-4">
          <h2 id={`${id}-studies`} className="text-lg font-semibold">
            {content.studies.length === 1 ? 'Study' : `Studies (${content.studies.length})`}
          </h2>
          {content.studies.map((study) => (
            <ShlStudyCard key={study.id} study={study} headers={headers} onEnded={ended} />
          ))}
        </section>
        {content.otherReports.length > 0 && (
          <section aria-labelledby={`${id}-reports`} className="grid gap-3">
            <h2 id={`${id}-reports`} className="text-lg font-semibold">
              Reports
            </h2>
            {content.otherReports.map((report) => (
              <ShlReportView key={report.key} report={report} />
            ))}
          </section>
        )}
        <p className="text-xs text-muted-foreground">
          The patient can see that you opened these studies, and can end this link at any time.
        </p>
      </Shell>
    );
  }

  const loading = phase.name === 'loading';
  return (
    <Shell>
      <LinkHeading payload={payload} />
      <Card className="p-4 sm:p-6">
        <form
          noValidate
          className="grid gap-4"
          aria-label="Open the shared studies"
          onSubmit={(e) => void submit(e)}
        >
          <p className="text-sm text-muted-foreground">
            Someone shared medical images with you. Tell us who you are to open them: the patient sees the
            name you enter.
          </p>
          <div className="grid gap-2">
            <Label htmlFor={`${id}-recipient`}>Your name</Label>
            <Input
              id={`${id}-recipient`}
              autoComplete="name"
              value={recipient}
              onChange={(e) => setRecipient(e.target.value)}
              aria-required="true"
              aria-invalid={errors.recipient ? true : undefined}
              aria-describedby={errors.recipient ? `${id}-recipient-error` : undefined}
              placeholder="For example: Dr Ana Rivera, City Clinic"
            />
            <FieldError id={`${id}-recipient-error`} message={errors.recipient} />
          </div>
          {askPasscode && (
            <div className="grid gap-2">
              <Label htmlFor={`${id}-passcode`}>Passcode</Label>
              <PasswordInput
                id={`${id}-passcode`}
                autoComplete="off"
                value={passcode}
                onChange={(e) => setPasscode(e.target.value)}
                aria-required="true"
                aria-invalid={errors.passcode ? true : undefined}
                aria-describedby={errors.passcode ? `${id}-passcode-error` : `${id}-passcode-hint`}
              />
              <p id={`${id}-passcode-hint`} className="text-xs text-muted-foreground">
                The patient gives it to you separately from the link.
              </p>
              <FieldError id={`${id}-passcode-error`} message={errors.passcode} />
            </div>
          )}
          {errors.form && (
            <p role="alert" className="text-sm text-destructive">
              {errors.form}
            </p>
          )}
          <Button type="submit" disabled={loading} aria-busy={loading || undefined} className="sm:w-fit">
            {loading ? 'Opening…' : 'Open studies'}
          </Button>
        </form>
      </Card>
    </Shell>
  );
}
