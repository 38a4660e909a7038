import { zodResolver } from '@hookform/resolvers/zod';
import {
  deliverReportBodySchema,
  type DeliverReportBody,
  type ProfessionalOrder,
} from '@mi/contracts/fulfilment';
import { useForm } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from '@/components/ui/dialog';
import { FieldError } from '@/components/ui/field-error';
import { Label } from '@/components/ui/label';
import { Textarea } from '@/components/ui/textarea';
import { toast, toastError } from '@/hooks/use-toast';
import { errorMessage } from '@/lib/api-client';
import { useDeliverReport, useSaveReport } from '../api/professional-orders';

const FIELDS: Array<{ name: keyof DeliverReportBody; label: string; required: boolean }> = [
  { name: 'findings', label: 'Findings', required: true },
  { name: 'impression', label: 'Impression', required: true },
  { name: 'recommendation', label: 'Recommendation', required: false },
];

/** Writing an order's report: Save Draft keeps it, Deliver adds it to the patient's study. */
export function ReportDialog({ order, onClose }: { order: ProfessionalOrder; onClose: () => void }) {
  const save = useSaveReport();
  const deliver = useDeliverReport();
  const form = useForm<DeliverReportBody>({
    resolver: zodResolver(deliverReportBodySchema),
    defaultValues: order.draft,
  });
  const errors = form.formState.errors;

  const onDeliver = form.handleSubmit((report) =>
    deliver.mutate(
      { id: order.id, report },
      {
        onSuccess: () => {
          toast({
            title: 'Report Delivered',
            description: 'The report was added to the study and the order is complete.',
          });
          onClose();
        },
        onError: (err) => toastError(errorMessage(err, 'The report could not be delivered.')),
      },
    ),
  );
  const onSave = () =>
    save.mutate(
      { id: order.id, draft: form.getValues() },
      {
        onSuccess: () => toast({ title: 'Draft Saved', description: 'Your report draft was saved.' }),
        onError: (err) => toastError(errorMessage(err, 'The draft could not be saved.')),
      },
    );

  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-h-[90dvh] overflow-y-auto sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>Write Report</DialogTitle>
          <DialogDescription>
            {order.service.name} for {order.provider.name}. Delivering adds the report to the patient's study
            as a PDF and completes the order.
          </DialogDescription>
        </DialogHeader>
        <form id="report-form" className="grid gap-4" onSubmit={onDeliver} noValidate>
          {FIELDS.map((f) => (
            <div key={f.name} className="grid gap-1.5">
              <Label htmlFor={`report-${f.name}`}>
                {f.label}
                {f.required ? '' : ' (optional)'}
              </Label>
              <Textarea
                id={`report-${f.name}`}
                rows={f.name === 'findings' ? 6 : 3}
                aria-invalid={!!errors[f.name]}
                aria-describedby={`report-${f.name}-error`}
                {...form.register(f.name)}
              />
              <FieldError id={`report-${f.name}-error`} message={errors[f.name]?.message} />
            </div>
          ))}
        </form>
        <DialogFooter className="gap-2">
          <Button
            variant="outline"
            type="button"
            onClick={onSave}
            disabled={save.isPending || deliver.isPending}
          >
            Save Draft
          </Button>
          <Button type="submit" form="report-form" disabled={deliver.isPending}>
            {deliver.isPending ? 'Delivering...' : 'Deliver Report'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
