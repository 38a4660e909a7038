import type { Purchase } from '@mi/contracts/orders';
import { useState } from 'react';
import { PageHeader } from '@/components/page-header';
import { useCurrentUser } from '@/features/auth/api/get-me';
import { TransactionHistory } from '@/features/orders/components/transaction-history';
import { PayOrderDialog } from '@/features/payments/components/pay-order-dialog';

/** /billing: the Transaction History page, where orders waiting for payment are paid. */
export default function BillingRoute() {
  const user = useCurrentUser();
  const [paying, setPaying] = useState<Purchase | null>(null);
  return (
    <>
      <PageHeader title="Transaction History" description="View and manage your transaction history" />
      <TransactionHistory userId={user.id} onPay={setPaying} />
      {paying && <PayOrderDialog order={paying} onClose={() => setPaying(null)} />}
    </>
  );
}
