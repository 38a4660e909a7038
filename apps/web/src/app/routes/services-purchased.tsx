import type { Purchase } from '@mi/contracts/orders';
import { useSearchParams } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { usePurchases } from '@/features/orders/api/get-purchases';
import { AttachStudyDialog } from '@/features/orders/components/attach-study-dialog';
import { PurchasedServicesPage } from '@/features/orders/components/purchased-services-page';
import { useUserStudies } from '@/features/studies/api/get-user-studies';

/** The attach dialog with the user's studies, read only while it is open. */
function AttachStudy({ userId, order, onClose }: { userId: string; order: Purchase; onClose: () => void }) {
  const studies = useUserStudies(userId);
  return (
    <AttachStudyDialog
      order={order}
      studies={studies.data?.map((s) => ({
        id: s._id,
        description: s.metadata.studyDescription,
        patientName: s.metadata.patientName,
        modality: s.metadata.modality,
        studyDate: s.metadata.studyDate,
        uploadedAt: s.createdAt,
      }))}
      onClose={onClose}
    />
  );
}

/**
 * /services/purchased: the Purchased Services page. `?attach={orderId}` opens the attach dialog of
 * an order waiting for data (the upload page's Go Back returns there).
 */
export default function ServicesPurchasedRoute() {
  const user = useCurrentUser();
  const [params, setParams] = useSearchParams();
  const purchases = usePurchases(user.id);
  const attachId = params.get('attach');
  const attaching = purchases.data?.find((p) => p.id === attachId && p.orderStatus === 'pending_data_upload');
  const close = () =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        next.delete('attach');
        return next;
      },
      { replace: true },
    );
  return (
    <>
      <PageHeader title="Purchased Services" description="View and manage your purchased services" />
      <PurchasedServicesPage userId={user.id} onAttach={(order) => setParams({ attach: order.id })} />
      {attaching && <AttachStudy userId={user.id} order={attaching} onClose={close} />}
    </>
  );
}
