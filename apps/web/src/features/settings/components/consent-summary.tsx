import type { User } from '@mi/contracts/auth';
import { CheckCircle2, CircleSlash } from 'lucide-react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { formatDateTime } from '@/lib/format';

/**
 * Settings → Consent Management: what the user agreed to and when. (The spec's Consent tab renders nothing;
 * see docs/spec-deviations.md.)
 */
export function ConsentSummary({ user }: { user: User }) {
  const sharing = user.shareMedicalData
    ? `Given${user.shareMedicalDataUpdatedAt ? ` on ${formatDateTime(user.shareMedicalDataUpdatedAt)}` : ''}`
    : user.shareMedicalDataUpdatedAt
      ? `Withdrawn on ${formatDateTime(user.shareMedicalDataUpdatedAt)}`
      : 'Not given';
  return (
    <Card>
      <CardHeader>
        <CardTitle>Consent</CardTitle>
        <CardDescription>What you have agreed to, and when.</CardDescription>
      </CardHeader>
      <CardContent>
        <dl className="grid gap-4">
          {/* Each term and its description sit directly in their group, as a definition list requires. */}
          <div className="grid gap-0.5">
            <dt className="flex items-start gap-3 font-medium">
              {user.termsAcceptedAt ? (
                <CheckCircle2 className="mt-0.5 size-5 shrink-0 text-primary" aria-hidden="true" />
              ) : (
                <CircleSlash className="mt-0.5 size-5 shrink-0 text-muted-foreground" aria-hidden="true" />
              )}
              Terms and conditions
            </dt>
            <dd className="pl-8 text-sm text-muted-foreground">
              {user.termsAcceptedAt
                ? `Accepted at registration on ${formatDateTime(user.termsAcceptedAt)}`
                : 'No acceptance recorded (the account was created without the registration form).'}
            </dd>
          </div>
          <div className="grid gap-0.5">
            <dt className="flex items-start gap-3 font-medium">
              {user.shareMedicalData ? (
                <CheckCircle2 className="mt-0.5 size-5 shrink-0 text-primary" aria-hidden="true" />
              ) : (
                <CircleSlash className="mt-0.5 size-5 shrink-0 text-muted-foreground" aria-hidden="true" />
              )}
              Sharing medical records with your care team
            </dt>
            <dd className="pl-8 text-sm text-muted-foreground">
              {sharing}. You can change this under Privacy &amp; Sharing.
            </dd>
          </div>
        </dl>
      </CardContent>
    </Card>
  );
}
