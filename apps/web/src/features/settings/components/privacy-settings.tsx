import type { User } from '@mi/contracts/auth';
import { KeyRound } from 'lucide-react';
import { useId, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { NativeSelect } from '@/components/ui/native-select';
import { Switch } from '@/components/ui/switch';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useRemoveTotp } from '../api/remove-totp';
import { useUpdateUser } from '../api/update-user';
import { useFreshProof } from '../hooks/use-fresh-proof';
import { PasswordCard } from './password-card';
import { SettingRow } from './setting-row';
import { TotpSetupDialog } from './totp-setup-dialog';

const completed = (description: string) => toast({ title: 'Update Completed', description });

/**
 * Settings → Privacy & Sharing: sharing consent, two-factor sign-in and its
 * method (email codes, or an authenticator app — an addition, see docs/spec-deviations.md), and the
 * password. Turning two-factor off, changing its method or the authenticator and the password ask
 * "Confirm it's you" when the last proof of identity is older than 5 minutes (useFreshProof).
 * Other failures are shown as a toast.
 */
export function PrivacySettings({ user }: { user: User }) {
  const id = useId();
  const update = useUpdateUser();
  const removeTotp = useRemoveTotp();
  const [totpOpen, setTotpOpen] = useState(false);
  const proof = useFreshProof();
  const failed = (err: unknown) =>
    toast({ title: 'Update Failed', description: errorMessage(err), variant: 'destructive' });

  const onMethodChange = (value: string) => {
    if (value !== 'email' && value !== 'totp') {
      toast({
        title: 'Update Required',
        description: 'Please select a method to verify your login',
        variant: 'destructive',
      });
      return;
    }
    if (value === 'totp' && !user.totpEnrolled) {
      setTotpOpen(true);
      return;
    }
    proof.run(() => update.mutateAsync({ id: user.id, mfaMethod: value }), {
      onSuccess: () => completed('Two Factor Auth method updated successfully.'),
      onError: failed,
    });
  };

  return (
    <div className="grid gap-6">
      <Card>
        <CardHeader>
          <CardTitle>Privacy &amp; Sharing</CardTitle>
          <CardDescription>Who may see your records, and how you sign in.</CardDescription>
        </CardHeader>
        <CardContent className="divide-y">
          <SettingRow
            id={`${id}-share`}
            label="Share Medical Records"
            description="Allow sharing with your care team."
          >
            <Switch
              id={`${id}-share`}
              checked={user.shareMedicalData}
              disabled={update.isPending}
              onCheckedChange={(shareMedicalData) =>
                update.mutate(
                  { id: user.id, shareMedicalData },
                  {
                    onSuccess: () => completed('Share medical records preference updated.'),
                    onError: (err) => console.error('Updating the sharing preference failed', err),
                  },
                )
              }
            />
          </SettingRow>
          <SettingRow
            id={`${id}-mfa`}
            label="Two-Factor Authentication"
            description="Ask for a code after your password when you sign in."
          >
            <Switch
              id={`${id}-mfa`}
              checked={user.mfaEnabled}
              disabled={update.isPending}
              onCheckedChange={(mfaEnabled) =>
                proof.run(() => update.mutateAsync({ id: user.id, mfaEnabled }), {
                  onSuccess: () => completed('Two Factor Auth updated successfully.'),
                  onError: failed,
                })
              }
            />
          </SettingRow>
          {user.mfaEnabled && (
            <div className="grid gap-2 py-3 sm:max-w-sm">
              <label htmlFor={`${id}-method`} className="text-sm font-medium">
                Two-Factor Authentication Method
              </label>
              <NativeSelect
                id={`${id}-method`}
                value={user.mfaMethod ?? ''}
                disabled={update.isPending}
                onChange={(e) => onMethodChange(e.target.value)}
              >
                <option value="">Select a method</option>
                <option value="email">Email</option>
                <option value="totp">Authenticator app</option>
              </NativeSelect>
            </div>
          )}
          <div className="flex flex-wrap items-center justify-between gap-3 py-3">
            <div className="flex items-start gap-3">
              <KeyRound className="mt-0.5 size-5 text-muted-foreground" aria-hidden="true" />
              <div className="grid gap-1">
                <span className="text-sm font-medium">Authenticator app</span>
                <span className="text-sm text-muted-foreground">
                  {user.totpEnrolled ? 'Set up. Codes from your app can be used to sign in.' : 'Not set up.'}
                </span>
              </div>
            </div>
            {user.totpEnrolled ? (
              <Button
                variant="outline"
                size="sm"
                disabled={removeTotp.isPending}
                onClick={() =>
                  proof.run(() => removeTotp.mutateAsync(), {
                    onSuccess: () => completed('Authenticator app removed.'),
                    onError: (err) =>
                      toast({ title: 'Error', description: errorMessage(err), variant: 'destructive' }),
                  })
                }
              >
                Remove authenticator app
              </Button>
            ) : (
              <Button variant="outline" size="sm" onClick={() => setTotpOpen(true)}>
                Set up authenticator app
              </Button>
            )}
          </div>
        </CardContent>
      </Card>
      <PasswordCard user={user} />
      <TotpSetupDialog open={totpOpen} onOpenChange={setTotpOpen} />
      {proof.dialog}
    </div>
  );
}
