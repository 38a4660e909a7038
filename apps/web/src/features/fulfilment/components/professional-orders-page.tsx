import type { ProfessionalOrder } from '@mi/contracts/fulfilment';
import { Eye, FileText } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { listStatus, ListStatus } from '@/components/list/list-status';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { Textarea } from '@/components/ui/textarea';
import { studyTransferPath } from '@/config/paths';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDate } from '@/lib/format';
import { useAcceptOrder, useDeclineOrder, useProfessionalOrders } from '../api/professional-orders';
import { ReportDialog } from './report-dialog';

const STATUS: Record<string, { label: string; className: string }> = {
  pending_approval: { label: 'Awaiting Your Approval', className: 'bg-yellow-100 text-yellow-800' },
  pending_data_upload: { label: 'Waiting for Patient Data', className: 'bg-blue-100 text-blue-800' },
  in_progress: { label: 'In Progress', className: 'bg-purple-100 text-purple-800' },
  completed: { label: 'Completed', className: 'bg-green-100 text-green-800' },
  declined: { label: 'Declined', className: 'bg-red-100 text-red-800' },
  refunded: { label: 'Refunded', className: 'bg-slate-200 text-slate-700' },
};

function StatusBadge({ status }: { status: string }) {
  const known = STATUS[status];
  return <Badge className={known?.className ?? 'bg-muted text-foreground'}>{known?.label ?? status}</Badge>;
}

function studySummary(o: ProfessionalOrder): string {
  if (!o.study) return 'Study no longer available';
  const parts = [
    o.study.modalities.join('/') || 'Unknown modality',
    o.study.bodyPart,
    `${o.study.seriesCount} series`,
    `${o.study.instanceCount} images`,
    o.study.studyDate ? `taken ${formatDate(o.study.studyDate)}` : null,
  ];
  return parts.filter(Boolean).join(' · ');
}

/**
 * My Orders: the orders patients bought from the providers linked to this professional. Accepting
 * opens the study (read only, until the order ends); declining refunds the patient in full.
 */
export function ProfessionalOrdersPage() {
  const orders = useProfessionalOrders();
  const accept = useAcceptOrder();
  const decline = useDeclineOrder();
  const [declining, setDeclining] = useState<ProfessionalOrder | null>(null);
  const [reason, setReason] = useState('');
  const [writing, setWriting] = useState<ProfessionalOrder | null>(null);

  const status = listStatus(orders, orders.data?.length ?? 0);
  if (status)
    return (
      <ListStatus
        query={orders}
        count={0}
        error="Your orders could not be loaded."
        empty={
          <Card className="p-8 text-center text-muted-foreground">
            No orders yet. Orders for the providers linked to your account appear here.
          </Card>
        }
      />
    );

  return (
    <>
      <ul className="grid gap-4" aria-label="Orders">
        {(orders.data ?? []).map((o) => (
          <li key={o.id}>
            <Card className="flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between">
              <div className="min-w-0 space-y-1">
                <div className="flex flex-wrap items-center gap-2">
                  <h2 className="font-semibold">{o.service.name}</h2>
                  <StatusBadge status={o.orderStatus} />
                </div>
                <p className="text-sm text-muted-foreground">
                  {o.provider.name} · ordered {formatDate(o.paidAt)}
                  {o.completedAt ? ` · completed ${formatDate(o.completedAt)}` : ''}
                </p>
                <p className="text-sm">{studySummary(o)}</p>
              </div>
              <div className="flex shrink-0 flex-wrap gap-2">
                {o.orderStatus === 'pending_approval' && (
                  <>
                    <Button
                      variant="outline"
                      onClick={() => {
                        setReason('');
                        setDeclining(o);
                      }}
                    >
                      Decline
                    </Button>
                    <Button
                      disabled={accept.isPending}
                      onClick={() =>
                        accept.mutate(o.id, {
                          onSuccess: () =>
                            toast({
                              title: 'Order Accepted',
                              description: 'You can now open the study and write the report.',
                            }),
                          onError: (err) => toastError(errorMessage(err, 'The order could not be accepted.')),
                        })
                      }
                    >
                      Accept
                    </Button>
                  </>
                )}
                {o.orderStatus === 'in_progress' && o.studyId && (
                  <>
                    <Button variant="outline" asChild>
                      <Link to={studyTransferPath(o.studyId)} target="_blank" rel="noopener">
                        <Eye aria-hidden="true" /> Open Study
                      </Link>
                    </Button>
                    <Button onClick={() => setWriting(o)}>
                      <FileText aria-hidden="true" /> Write Report
                    </Button>
                  </>
                )}
              </div>
            </Card>
          </li>
        ))}
      </ul>

      <Dialog open={declining !== null} onOpenChange={(open) => !open && setDeclining(null)}>
        <DialogContent role="alertdialog">
          <DialogHeader>
            <DialogTitle>Decline Order</DialogTitle>
            <DialogDescription>
              The patient is refunded in full and told that the order was declined.
            </DialogDescription>
          </DialogHeader>
          <div className="grid gap-1.5">
            <Label htmlFor="decline-reason">Reason (optional, kept in the record)</Label>
            <Textarea
              id="decline-reason"
              rows={3}
              maxLength={500}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
          </div>
          <DialogFooter>
            <Button variant="outline" onClick={() => setDeclining(null)}>
              Cancel
            </Button>
            <Button
              variant="destructive"
              disabled={decline.isPending}
              onClick={() =>
                declining &&
                decline.mutate(
                  { id: declining.id, reason: reason.trim() || undefined },
                  {
                    onSuccess: () => {
                      toast({ title: 'Order Declined', description: 'The patient was refunded in full.' });
                      setDeclining(null);
                    },
                    onError: (err) => toastError(errorMessage(err, 'The order could not be declined.')),
                  },
                )
              }
            >
              Decline and Refund
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>

      {writing && <ReportDialog order={writing} onClose={() => setWriting(null)} />}
    </>
  );
}
