import { describe, expect, it } from 'vitest';
import { awaitsAutomatedPart, mayActOnOrder } from '../../../src/modules/orders/order-access';

// The one order-access rule (modules/orders/order-access.ts) that orders, fulfilment, ratings,
// analysis and vendors ask.
const buyer = { id: 'buyer', role: 'patient' };
const reader = { id: 'reader', role: 'professional' };
const provider = { linkedUserId: 'reader' };

describe('mayActOnOrder', () => {
  it('lets the buyer act as buyer, and nobody else', () => {
    const order = { userId: 'buyer', status: 'awaiting_payment' };
    expect(mayActOnOrder(buyer, 'buyer', order)).toBe(true);
    expect(mayActOnOrder(reader, 'buyer', order, provider)).toBe(false);
    expect(mayActOnOrder({ id: 'buyer', role: 'admin' }, 'buyer', { ...order, userId: 'other' })).toBe(false);
  });

  it("lets the provider's linked professional act once the order is paid", () => {
    const paid = { userId: 'buyer', status: 'pending_approval' };
    expect(mayActOnOrder(reader, 'professional', paid, provider)).toBe(true);
    expect(mayActOnOrder(reader, 'professional', { ...paid, status: 'awaiting_payment' }, provider)).toBe(
      false,
    );
    expect(mayActOnOrder(reader, 'professional', paid, { linkedUserId: 'someone-else' })).toBe(false);
    expect(mayActOnOrder(reader, 'professional', paid)).toBe(false);
    // Linked, but not (or no longer) a professional.
    expect(mayActOnOrder({ id: 'reader', role: 'patient' }, 'professional', paid, provider)).toBe(false);
    // The buyer is not the professional.
    expect(mayActOnOrder(buyer, 'professional', paid, provider)).toBe(false);
  });

  it('answers either party for buyer_or_professional', () => {
    const done = { userId: 'buyer', status: 'completed' };
    expect(mayActOnOrder(buyer, 'buyer_or_professional', done, provider)).toBe(true);
    expect(mayActOnOrder(reader, 'buyer_or_professional', done, provider)).toBe(true);
    expect(
      mayActOnOrder({ id: 'stranger', role: 'professional' }, 'buyer_or_professional', done, provider),
    ).toBe(false);
  });
});

describe('awaitsAutomatedPart', () => {
  it('is an AI order in progress, or an open package without its automated part', () => {
    const none = null;
    expect(awaitsAutomatedPart({ serviceType: 'AI', status: 'in_progress', automatedReportAt: none })).toBe(
      true,
    );
    expect(awaitsAutomatedPart({ serviceType: 'AI', status: 'completed', automatedReportAt: none })).toBe(
      false,
    );
    expect(
      awaitsAutomatedPart({ serviceType: 'Combined', status: 'pending_approval', automatedReportAt: none }),
    ).toBe(true);
    expect(
      awaitsAutomatedPart({ serviceType: 'Combined', status: 'in_progress', automatedReportAt: none }),
    ).toBe(true);
    expect(
      awaitsAutomatedPart({ serviceType: 'Combined', status: 'in_progress', automatedReportAt: new Date() }),
    ).toBe(false);
    expect(
      awaitsAutomatedPart({ serviceType: 'Combined', status: 'refunded', automatedReportAt: none }),
    ).toBe(false);
    expect(
      awaitsAutomatedPart({ serviceType: 'Expert', status: 'in_progress', automatedReportAt: none }),
    ).toBe(false);
  });
});
