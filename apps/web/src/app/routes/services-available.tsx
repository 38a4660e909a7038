import type { Service, ServiceProvider } from '@mi/contracts/orders';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { PageHeader } from '@/components/page-header';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { PurchaseDialog } from '@/features/payments/components/purchase-dialog';
import { AvailableServicesPage } from '@/features/services/components/available-services-page';
import { useUserStudies } from '@/features/studies/api/get-user-studies';
import { formatPersonName } from '@/lib/format';

/** /services/available: the Available Services page and its purchase dialog. */
export default function ServicesAvailableRoute() {
  const [params] = useSearchParams();
  const user = useCurrentUser();
  const studies = useUserStudies(user.id);
  const [buying, setBuying] = useState<{ service: Service; provider: ServiceProvider } | null>(null);
  const getAnalysis = params.get('action') === 'getanalysis';
  return (
    <>
      <PageHeader title="Available Services" description="Browse and purchase medical analysis services" />
      <AvailableServicesPage
        banner={
          getAnalysis
            ? { studyName: params.get('studyName') || 'N/A', patientName: params.get('patientName') || 'N/A' }
            : undefined
        }
        onPurchase={(service, provider) => setBuying({ service, provider })}
      />
      {buying && (
        <PurchaseDialog
          service={buying.service}
          provider={buying.provider}
          userId={user.id}
          defaultStudyId={getAnalysis ? (params.get('studyId') ?? undefined) : undefined}
          studies={(studies.data ?? []).map((s) => ({
            id: s._id,
            // As every list shows it ('DOE, JOHN' for the DICOM 'DOE^JOHN').
            patientName: formatPersonName(s.metadata.patientName) || null,
            studyDescription: s.metadata.studyDescription,
            modality: s.metadata.modality,
          }))}
          onClose={() => setBuying(null)}
        />
      )}
    </>
  );
}
