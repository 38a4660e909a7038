import type { User } from '@mi/contracts/auth';
import { useId } from 'react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { Switch } from '@/components/ui/switch';
import { toast } from '@/hooks/use-toast';
import { useUpdateUser } from '../api/update-user';
import { SettingRow } from './setting-row';

/** Settings → Notifications. A failed save is only logged. */
export function NotificationSettings({ user }: { user: User }) {
  const id = useId();
  const update = useUpdateUser();
  return (
    <Card>
      <CardHeader>
        <CardTitle>Notifications</CardTitle>
        <CardDescription>How we keep you informed.</CardDescription>
      </CardHeader>
      <CardContent>
        <SettingRow
          id={`${id}-email`}
          label="Email Notifications"
          description="Receive emails when your studies are processed and shared."
        >
          <Switch
            id={`${id}-email`}
            checked={user.emailNotifications}
            disabled={update.isPending}
            onCheckedChange={(emailNotifications) =>
              update.mutate(
                { id: user.id, emailNotifications },
                {
                  onSuccess: () =>
                    toast({
                      title: 'Update Completed',
                      description: 'Email settings preference saved successfully.',
                    }),
                  onError: (err) => console.error('Saving the email notification preference failed', err),
                },
              )
            }
          />
        </SettingRow>
      </CardContent>
    </Card>
  );
}
