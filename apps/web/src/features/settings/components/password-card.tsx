import type { User } from '@mi/contracts/auth';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { toast } from '@/hooks/use-toast';
import { PasswordForm } from './password-form';

/**
 * Settings → Privacy & Sharing → Password. The other sessions are signed out and the owner is
 * emailed.
 */
export function PasswordCard({ user }: { user: User }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Password</CardTitle>
        <CardDescription>
          {user.hasPassword
            ? 'Changing it signs out your other devices.'
            : 'You sign in with Google. Set a password to sign in with your email too.'}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <PasswordForm
          user={user}
          onChanged={(message) => toast({ title: 'Password changed', description: message })}
        />
      </CardContent>
    </Card>
  );
}
