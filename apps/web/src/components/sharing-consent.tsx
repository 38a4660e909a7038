import type { User } from '@mi/contracts/auth';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Loader2, ShieldCheck } from 'lucide-react';
import { useId } from 'react';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { toast, toastError } from '@/hooks/use-toast';
import { api, errorMessage } from '@/lib/api-client';
import { queryKeys } from '@/lib/query-keys';

/**
 * PUT /api/users/{id} with `shareMedicalData: true`: the owner's consent to sharing, given where it is
 * needed (the same setting as Settings → Privacy & Sharing → Share Medical Records).
 */
export function allowSharing(userId: string): Promise<User> {
  return api.put<User>(`/api/users/${encodeURIComponent(userId)}`, { shareMedicalData: true });
}

export function useAllowSharing() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: allowSharing,
    onSuccess: (user) => queryClient.setQueryData(queryKeys.me, user),
  });
}

/**
 * Shown while the owner's Share Medical Records setting is off, wherever they would share (the Share
 * dialog, the provider picker, the link dialog): why nothing can be shared, what turning it on allows,
 * and the switch itself, so consent is given where it is needed.
 */
export function SharingConsent({
  userId,
  blocked,
}: {
  userId: string;
  /** What the setting stops here, as the end of a sentence: "this study cannot be shared". */
  blocked: string;
}) {
  const titleId = useId();
  const allow = useAllowSharing();
  return (
    <Alert variant="info" className="grid gap-2" role="region" aria-labelledby={titleId}>
      <div className="grid gap-2">
        <AlertTitle id={titleId} className="flex items-center gap-2">
          <ShieldCheck className="size-4 shrink-0" aria-hidden="true" />
          Sharing is turned off
        </AlertTitle>
        <AlertDescription className="grid gap-2">
          <p>Your Share Medical Records setting is off, so {blocked}. Turning it on allows:</p>
          <ul className="list-disc space-y-1 pl-5">
            <li>
              the people and providers you choose to view the studies you share with them (they cannot
              download, delete or pass them on);
            </li>
            <li>the study links you make to open for whoever holds them, until they end;</li>
            <li>anyone you shared a study with before to view it again.</li>
          </ul>
          <p>
            You can turn it off at any time under Settings → Privacy &amp; Sharing; everyone you shared with
            then loses access, and no link opens, until you turn it on again.
          </p>
        </AlertDescription>
        <div>
          <Button
            type="button"
            size="sm"
            disabled={allow.isPending}
            aria-busy={allow.isPending || undefined}
            onClick={() =>
              allow.mutate(userId, {
                onSuccess: () =>
                  toast({
                    title: 'Update Completed',
                    description: 'Share medical records preference updated.',
                  }),
                onError: (err) => toastError(errorMessage(err)),
              })
            }
          >
            {allow.isPending && <Loader2 className="animate-spin" aria-hidden="true" />}
            Turn On Share Medical Records
          </Button>
        </div>
      </div>
    </Alert>
  );
}
