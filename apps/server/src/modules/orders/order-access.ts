/**
 * Who may act on an order, decided here and nowhere else (orders, fulfilment, ratings, analysis and
 * vendors ask this file): its buyer; the professional of the provider it was sent to, once it is
 * paid; and its automated part (the platform's analysis or an external AI vendor) while it awaits
 * it. Each caller answers a refusal with its own audited 404. The study an order opens is decided
 * in modules/access (access.repository.ts says the professional and vendor parts in SQL).
 */
export type OrderParty = 'buyer' | 'professional' | 'buyer_or_professional';

interface OrderActor {
  id: string;
  role: string | null;
}

export function mayActOnOrder(
  actor: OrderActor,
  as: OrderParty,
  order: { userId: string; status: string },
  provider?: { linkedUserId: string | null },
): boolean {
  const buyer = order.userId === actor.id;
  // An unpaid order is not yet the professional's.
  const professional =
    actor.role === 'professional' &&
    provider?.linkedUserId === actor.id &&
    order.status !== 'awaiting_payment';
  if (as === 'buyer') return buyer;
  if (as === 'professional') return professional;
  return buyer || professional;
}

/**
 * Whether an order awaits its automated part (the analysis job, or the external AI vendor it is
 * sent to): an AI order in progress, or a Complete Analysis Package that is paid, open (waiting for
 * or in the professional's hands) and still without its automated part. A package refunded or
 * declined before its automated part ran never runs it. `vendorCredentialFor` in
 * modules/access/access.repository.ts says the same in SQL.
 */
export function awaitsAutomatedPart(o: {
  serviceType: string;
  status: string;
  automatedReportAt: Date | null;
}): boolean {
  return (
    (o.serviceType === 'AI' && o.status === 'in_progress') ||
    (o.serviceType === 'Combined' &&
      (o.status === 'pending_approval' || o.status === 'in_progress') &&
      !o.automatedReportAt)
  );
}
