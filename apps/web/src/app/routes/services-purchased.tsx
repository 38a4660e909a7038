import { PageHeader } from '@/components/page-header';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { PurchasedServicesPage } from '@/features/orders/components/purchased-services-page';

/** /services/purchased: the Purchased Services page. */
export default function ServicesPurchasedRoute() {
  const user = useCurrentUser();
  return (
    <>
      <PageHeader title="Purchased Services" description="View and manage your purchased services" />
      <PurchasedServicesPage userId={user.id} />
    </>
  );
}
