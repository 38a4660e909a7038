import type { Purchase } from '@mi/contracts/orders';
import { describe, expect, it } from 'vitest';
import {
  filterTransactions,
  formatAmount,
  transactionEntries,
} from '../src/features/orders/utils/transactions';

function purchase(id: string, over: Partial<Purchase> = {}): Purchase {
  return {
    id,
    createdAt: '2025-03-01T10:00:00.000Z',
    cost: 199.99,
    orderStatus: 'pending_approval',
    service: { id: 's1', name: 'Expert Review', scope: 'expert_review', type: 'Expert' },
    provider: { id: 'p1', name: 'Radiology Partners', demo: false },
    rating: null,
    studyId: 'st1',
    paidAt: '2025-03-01T10:00:00.000Z',
    card: { brand: 'visa', last4: '4242' },
    paymentIntentId: 'pi_1',
    refundedAmount: null,
    refundedAt: null,
    automatedReportAt: null,
    ...over,
  };
}

describe('Transaction History lines', () => {
  it('lists a refund as its own line, dated when it was made, with a negative amount', () => {
    const refunded = purchase('a', {
      orderStatus: 'refunded',
      refundedAmount: 199.99,
      refundedAt: '2025-03-04T09:00:00.000Z',
    });
    const later = purchase('b', { createdAt: '2025-03-02T10:00:00.000Z', cost: 49.99 });
    const lines = transactionEntries([later, refunded]);
    expect(lines.map((l) => [l.key, l.kind, l.date, l.amount])).toEqual([
      ['a:refund', 'refund', '2025-03-04T09:00:00.000Z', -199.99],
      ['b', 'payment', '2025-03-02T10:00:00.000Z', 49.99],
      ['a', 'payment', '2025-03-01T10:00:00.000Z', 199.99],
    ]);
  });

  it('puts a refund of the same instant above its charge', () => {
    const same = purchase('a', { refundedAmount: 10, refundedAt: '2025-03-01T10:00:00.000Z' });
    expect(transactionEntries([same]).map((l) => l.kind)).toEqual(['refund', 'payment']);
  });

  it('filters by the order status (both lines of a refunded order) and by name or id', () => {
    const lines = transactionEntries([
      purchase('order-1', { orderStatus: 'refunded', refundedAmount: 5, refundedAt: '2025-03-05T00:00:00Z' }),
      purchase('order-2', {
        service: { id: 's2', name: 'AI Quick Analysis', scope: 'ai_analysis', type: 'AI' },
      }),
    ]);
    expect(filterTransactions(lines, '', 'refunded').map((l) => l.key)).toEqual([
      'order-1:refund',
      'order-1',
    ]);
    expect(filterTransactions(lines, 'QUICK', 'all').map((l) => l.key)).toEqual(['order-2']);
    expect(filterTransactions(lines, 'order-1', 'all')).toHaveLength(2);
    expect(filterTransactions(lines, 'nothing', 'all')).toEqual([]);
  });

  it('writes money given back with a minus before the dollar sign', () => {
    expect(formatAmount(199.99)).toBe('$199.99');
    expect(formatAmount(-199.99)).toBe('-$199.99');
    expect(formatAmount(0)).toBe('$0.00');
  });
});
