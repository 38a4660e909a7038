import { PageHeader } from '@/components/page-header';
import { NotFoundCard } from './not-found';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { ProfessionalOrdersPage } from '@/features/fulfilment/components/professional-orders-page';

/** /professional/orders: a professional's workspace (My Orders); missing for everyone else. */
export default function ProfessionalOrdersRoute() {
  const user = useCurrentUser();
  if (user.role !== 'professional') return <NotFoundCard />;
  return (
    <>
      <PageHeader title="My Orders" description="Analysis orders for the providers linked to your account" />
      <ProfessionalOrdersPage />
    </>
  );
}
