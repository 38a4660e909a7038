import type { User } from '@mi/contracts/auth';
import { Bell, CheckCircle2, FileStack, FolderOpen, ListChecks, Upload, type LucideIcon } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { cn } from '@/lib/utils';
import { useSaveWelcomeShown } from '../api/save-welcome-shown';

interface Step {
  title: string;
  text: string;
  icon: LucideIcon;
}

/** The Dashboard's six onboarding steps, in order. */
export const ONBOARDING_STEPS: readonly Step[] = [
  {
    title: 'Click Upload New Study',
    text: 'Start from the dashboard or My Studies with the Upload New Study button.',
    icon: Upload,
  },
  {
    title: 'Choose media type and files',
    text: 'Pick files, a folder, a ZIP archive or a CD/DVD, then select your files.',
    icon: FolderOpen,
  },
  {
    title: 'Click Upload',
    text: 'Press Upload Files. You can upload several files at once.',
    icon: FileStack,
  },
  {
    title: 'Wait for processing',
    text: 'Your study is processed after the upload; you can keep using the app meanwhile.',
    icon: CheckCircle2,
  },
  {
    title: 'Return to the study list',
    text: 'Go back to My Studies to find the study once it is ready.',
    icon: ListChecks,
  },
  {
    title: 'Get notified or request analysis',
    text: 'Wait for a notification, or request an analysis of any processed study.',
    icon: Bell,
  },
];

/**
 * Welcome dialog: shown while welcomeModalShown is false. Skip, Done or closing it
 * saves welcomeModalShown=true.
 */
export function WelcomeDialog({ user }: { user: User }) {
  const [step, setStep] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const save = useSaveWelcomeShown();
  if (user.welcomeModalShown || dismissed) return null;

  const close = () => {
    setDismissed(true);
    save.mutate(user.id);
  };
  const current = ONBOARDING_STEPS[step]!;
  const Icon = current.icon;
  const last = step === ONBOARDING_STEPS.length - 1;

  return (
    <Dialog open onOpenChange={(open) => !open && close()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Welcome to Medical Imaging</DialogTitle>
          <DialogDescription>
            Step {step + 1} of {ONBOARDING_STEPS.length}
          </DialogDescription>
        </DialogHeader>
        <div className="grid justify-items-center gap-3 py-2 text-center" aria-live="polite">
          <span className="flex size-12 items-center justify-center rounded-full bg-accent text-accent-foreground">
            <Icon className="size-6" aria-hidden="true" />
          </span>
          <h3 className="font-semibold">{current.title}</h3>
          <p className="text-sm text-muted-foreground">{current.text}</p>
        </div>
        <ol className="flex justify-center gap-1.5" aria-label="Progress">
          {ONBOARDING_STEPS.map((s, i) => (
            <li
              key={s.title}
              aria-current={i === step ? 'step' : undefined}
              className={cn('size-2 rounded-full', i <= step ? 'bg-primary' : 'bg-muted')}
            >
              <span className="sr-only">{s.title}</span>
            </li>
          ))}
        </ol>
        <DialogFooter>
          {!last && (
            <Button variant="outline" onClick={close}>
              Skip
            </Button>
          )}
          {last ? (
            <Button onClick={close}>Done</Button>
          ) : (
            <Button onClick={() => setStep((s) => s + 1)}>Next</Button>
          )}
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
