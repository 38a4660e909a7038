import { zodResolver } from '@hookform/resolvers/zod';
import { rejectProfessionalBodySchema, type ProfessionalApplication } from '@mi/contracts/admin';
import { Check, UserCheck, X } from 'lucide-react';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { EmptyState } from '@/components/empty-state';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';
import { NativeSelect } from '@/components/ui/native-select';
import { Textarea } from '@/components/ui/textarea';
import { toast } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate, formatDateTime } from '@/lib/format';
import { FormDialog } from '../../shared/components/form-dialog';
import { RefreshButton } from '../../shared/components/list-actions';
import { toastFailure } from '../../shared/utils/change-toasts';
import { useProfessionals, type ApplicationStatusFilter } from '../api/get-professionals';
import { useReviewProfessional } from '../api/review-professional';

// The server's rule: a reason is required.
type RejectValues = z.infer<typeof rejectProfessionalBodySchema>;

const STATUS_LABEL: Record<ProfessionalApplication['accountStatus'], string> = {
  pending: 'Pending',
  active: 'Approved',
  rejected: 'Rejected',
  disabled: 'Disabled',
};

/** Medical professionals waiting for licence verification: approve, or reject with a reason. */
export function ProfessionalsList() {
  const id = useId();
  const [status, setStatus] = useState<ApplicationStatusFilter>('pending');
  const applications = useProfessionals(status);
  const review = useReviewProfessional();
  const [rejecting, setRejecting] = useState<ProfessionalApplication | null>(null);
  const list = applications.data ?? [];

  const approve = (app: ProfessionalApplication) =>
    review.mutate(
      { id: app.id, decision: 'approve' },
      {
        onSuccess: () =>
          toast({ title: 'Application approved', description: `${app.email} can now use the platform.` }),
        onError: toastFailure,
      },
    );

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-end justify-between gap-3 space-y-0">
        <div>
          <CardTitle>Professionals</CardTitle>
          <CardDescription>Verify each licence before approving an application.</CardDescription>
        </div>
        <div className="flex items-end gap-2">
          <div className="grid gap-1">
            <Label htmlFor={`${id}-status`} className="text-xs">
              Status
            </Label>
            <NativeSelect
              id={`${id}-status`}
              value={status}
              onChange={(e) => setStatus(e.target.value as ApplicationStatusFilter)}
            >
              <option value="pending">Pending</option>
              <option value="rejected">Rejected</option>
              <option value="active">Approved</option>
              <option value="all">All</option>
            </NativeSelect>
          </div>
          <RefreshButton query={applications} />
        </div>
      </CardHeader>
      <CardContent>
        <ListStatus
          query={applications}
          count={list.length}
          error="The applications could not be loaded"
          empty={
            <EmptyState icon={UserCheck} title="No applications">
              {status === 'pending'
                ? 'No professional is waiting for verification.'
                : 'Nothing matches this filter.'}
            </EmptyState>
          }
        />
        {listStatus(applications, list.length) === null && (
          <ul className="grid gap-3" aria-label="Professional applications">
            {list.map((app) => (
              <li key={app.id} className="rounded-md border p-4" aria-label={app.name ?? app.email}>
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">{app.name ?? 'Unnamed'}</span>
                  <Badge
                    variant={
                      app.accountStatus === 'rejected'
                        ? 'destructive'
                        : app.accountStatus === 'active'
                          ? 'default'
                          : 'secondary'
                    }
                  >
                    {STATUS_LABEL[app.accountStatus]}
                  </Badge>
                  {!app.emailVerified && <Badge variant="outline">Email not verified</Badge>}
                </div>
                <dl className="mt-2 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
                  <dt className="text-muted-foreground">Email</dt>
                  <dd className="break-all">{app.email}</dd>
                  <dt className="text-muted-foreground">Phone</dt>
                  <dd>{app.mobilePhone ?? '—'}</dd>
                  <dt className="text-muted-foreground">License</dt>
                  <dd>
                    {app.license.number} · {app.license.state} · expires {formatDate(app.license.expiryDate)}
                  </dd>
                  <dt className="text-muted-foreground">Specialty</dt>
                  <dd>{app.specialty}</dd>
                  <dt className="text-muted-foreground">Hospital/Clinic</dt>
                  <dd>{app.hospital}</dd>
                  <dt className="text-muted-foreground">Position</dt>
                  <dd>{app.position ?? '—'}</dd>
                  <dt className="text-muted-foreground">Applied</dt>
                  <dd>
                    <time dateTime={app.createdAt}>{formatDateTime(app.createdAt)}</time>
                  </dd>
                  {app.rejectionReason && (
                    <>
                      <dt className="text-muted-foreground">Reason</dt>
                      <dd>{app.rejectionReason}</dd>
                    </>
                  )}
                </dl>
                {app.accountStatus !== 'active' && (
                  <div className="mt-3 flex flex-wrap gap-2">
                    <Button size="sm" onClick={() => approve(app)} disabled={review.isPending}>
                      <Check aria-hidden="true" /> Approve
                    </Button>
                    {app.accountStatus === 'pending' && (
                      <Button
                        size="sm"
                        variant="outline"
                        onClick={() => setRejecting(app)}
                        disabled={review.isPending}
                      >
                        <X aria-hidden="true" /> Reject
                      </Button>
                    )}
                  </div>
                )}
              </li>
            ))}
          </ul>
        )}
      </CardContent>
      <RejectDialog application={rejecting} onClose={() => setRejecting(null)} />
    </Card>
  );
}

function RejectDialog({
  application,
  onClose,
}: {
  application: ProfessionalApplication | null;
  onClose: () => void;
}) {
  const id = useId();
  const review = useReviewProfessional();
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors },
  } = useForm<RejectValues>({
    resolver: zodResolver(rejectProfessionalBodySchema),
    defaultValues: { reason: '' },
  });

  const onSubmit = ({ reason }: RejectValues) => {
    if (!application) return;
    review.mutate(
      { id: application.id, decision: 'reject', reason },
      {
        onSuccess: () => {
          toast({ title: 'Application rejected', description: `${application.email} has been told why.` });
          reset();
          onClose();
        },
        onError: (err) => setError('reason', { type: 'server', message: errorMessage(err) }),
      },
    );
  };
  const error = errors.reason?.message;

  return (
    <FormDialog
      open={application !== null}
      onClose={onClose}
      onSubmit={handleSubmit(onSubmit)}
      title="Reject application"
      description={
        <>
          {application?.name ?? application?.email} will receive this reason by email and see it when signing
          in.
        </>
      }
      submitLabel="Reject Application"
      submitVariant="destructive"
      pending={review.isPending}
    >
      <div className="grid gap-2">
        <Label htmlFor={`${id}-reason`}>Reason</Label>
        <Textarea
          id={`${id}-reason`}
          maxLength={1000}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-reason-error` : undefined}
          {...register('reason')}
        />
        <FieldError id={`${id}-reason-error`} message={error} />
      </div>
    </FormDialog>
  );
}
