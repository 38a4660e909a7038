import {
  formatDollars,
  missingStudyDataOfListed,
  type Service,
  type ServiceProvider,
} from '@mi/contracts/orders';
import { useQueryClient } from '@tanstack/react-query';
import { CheckCircle2 } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { DemoBadge, RatingSummary } from '@/components/provider-trust';
import { Button } from '@/components/ui/button';
import { DialogDescription, DialogTitle } from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { NativeSelect } from '@/components/ui/native-select';
import { paths } from '@/config/paths';
import { toast } from '@/hooks/use-toast';
import { queryKeys } from '@/lib/query-keys';
import { recordPurchase } from '../api/payments';
import { usePaymentConfig } from './card-payment';
import { CheckoutDialog } from './checkout-dialog';

export interface StudyOption {
  id: string;
  patientName: string | null;
  studyDescription: string | null;
  /** Modalities joined with '/', as the studies list gives them ('CT', 'CT/SR'). */
  modality: string | null;
}

/** Why the service cannot read this study (the server's rule, missingStudyData), or null. */
function unfit(service: Service, study: StudyOption): string | null {
  return missingStudyDataOfListed(service.supportedModalities, study.modality);
}

/**
 * 'Confirm Purchase' (Available Services): the service, the provider's price, the study to analyse,
 * the card; then 'Payment Completed'. The server prices the payment and makes the purchase.
 */
export function PurchaseDialog({
  service,
  provider,
  studies,
  defaultStudyId,
  userId,
  onClose,
}: {
  service: Service;
  provider: ServiceProvider;
  studies: StudyOption[];
  defaultStudyId?: string;
  userId: string;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  // The 'Get Analysis' study is preselected once the list knows it, until the user picks another.
  const studyId = chosen ?? defaultStudyId ?? '';
  // A study the service cannot read may still be bought for (the order then waits, 'Upload Required
  // Data', until one it can read is attached), but the buyer is told so before paying.
  const problems = new Map(studies.map((s) => [s.id, unfit(service, s)]));
  const problem = studyId ? problems.get(studyId) : null;
  const amount = Math.round(provider.price * 100);
  // The test-mode sentence is true of the embedded sandbox processor only, never of real payments.
  const sandbox = usePaymentConfig().data?.processor === 'sandbox';

  return (
    <CheckoutDialog
      title="Confirm Purchase"
      description={service.description}
      className="max-w-xl"
      amountCents={amount}
      target={() => {
        if (!studyId) throw new Error('Please Select study to proceed');
        return { serviceId: service.id, providerId: provider.id, studyId, amount };
      }}
      onPaid={async ({ paymentIntentId }) => {
        // The server made the purchase when the payment succeeded; this call is the specification's
        // and changes nothing. Its failure is only logged.
        await recordPurchase({
          user: userId,
          service: service.id,
          provider: provider.id,
          cost: provider.price,
          paymentIntentId,
          study: studyId,
        }).catch((err: unknown) => console.warn('purchase record', err));
        setDone(true);
        toast({ title: 'Payment completed', description: `${service.name} from ${provider.name}.` });
        void queryClient.invalidateQueries({ queryKey: queryKeys.purchases.all });
      }}
      onClose={onClose}
      done={
        done ? (
          <div className="grid justify-items-center gap-4 py-4 text-center">
            <CheckCircle2 className="size-12 text-green-600" aria-hidden />
            <DialogTitle>Payment Completed</DialogTitle>
            <DialogDescription>
              {service.name} from {provider.name}: {formatDollars(provider.price)} paid.
            </DialogDescription>
            <Button asChild>
              <Link to={paths.servicesPurchased}>Go to Purchased Services</Link>
            </Button>
          </div>
        ) : undefined
      }
    >
      {(busy) => (
        <>
          <div className="grid gap-1 text-sm">
            <p className="flex flex-wrap items-center gap-x-1.5 gap-y-1">
              <span>
                <span className="font-medium">{service.name}</span> from {provider.name}
              </span>
              {provider.demo && <DemoBadge />}
            </p>
            <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-muted-foreground">
              <span>Turnaround: {provider.turnaround}</span>
              <RatingSummary rating={provider.rating} count={provider.ratingCount} />
            </p>
            <p>
              Price: <span className="font-semibold">{formatDollars(provider.price)}</span>
            </p>
            <div>
              <p className="font-medium">Required data:</p>
              <ul className="list-disc pl-5 text-muted-foreground">
                {service.requiredData.map((d) => (
                  <li key={d}>{d}</li>
                ))}
              </ul>
            </div>
          </div>
          <div className="grid gap-1.5">
            <Label htmlFor="purchase-study">Select study:</Label>
            <NativeSelect
              id="purchase-study"
              value={studyId}
              onChange={(e) => setChosen(e.target.value)}
              disabled={busy}
            >
              {studies.length === 0 ? (
                <option value="">No studies available</option>
              ) : (
                <>
                  <option value="">Select a study</option>
                  {studies.map((s) => (
                    <option key={s.id} value={s.id}>
                      {`${s.patientName || 'N/A'} - ${s.studyDescription || 'N/A'}`}
                      {problems.get(s.id) !== null &&
                        ` (${s.modality || 'no images'}: not read by this service)`}
                    </option>
                  ))}
                </>
              )}
            </NativeSelect>
            <p className="text-xs text-muted-foreground">
              This service reads {service.supportedModalities.join(', ')} studies.
            </p>
            {problem && (
              <p role="alert" className="text-sm text-destructive">
                {problem} If you pay for this one, the order waits until you attach a study the service can
                read (Purchased Services, Upload Required Data).
              </p>
            )}
          </div>
          <p className="text-xs text-muted-foreground">
            By paying you agree to the terms of service. The provider reads the selected study for this order
            only.
            {sandbox && ' Payments are processed in test mode; no real card is charged.'}
          </p>
        </>
      )}
    </CheckoutDialog>
  );
}
