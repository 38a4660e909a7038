import { FeatureNotice } from '@/components/feature-notice';
import { PageHeader } from '@/components/page-header';

/** /billing: the Transaction History page. */
export default function BillingRoute() {
  return (
    <>
      <PageHeader title="Transaction History" description="View and manage your transaction history" />
      <FeatureNotice>Transactions will be listed here once purchasing is available.</FeatureNotice>
    </>
  );
}
