import { expect } from 'vitest';
import type { DirectoryProfessional } from './directory';
import type { Patient } from './studies';
import type { TestContext } from './test-app';

/**
 * Buys a catalogue service from a provider for a study, paying with the sandbox's succeeding card
 * (as the purchase dialog does); the order id.
 */
export async function buyService(
  ctx: TestContext,
  who: Patient,
  opts: { serviceName: string; studyId: string; providerId: string },
): Promise<string> {
  const call = (url: string, payload: object) =>
    ctx.app.inject({ method: 'POST', url, headers: who.auth, payload });
  const catalogue = (await ctx.app.inject({ url: '/api/services', headers: who.auth })).json() as Array<{
    id: string;
    name: string;
  }>;
  const intent = await call('/api/payments/create-payment-intent', {
    serviceId: catalogue.find((s) => s.name === opts.serviceName)!.id,
    providerId: opts.providerId,
    studyId: opts.studyId,
  });
  expect(intent.statusCode, intent.body).toBe(200);
  const paid = await call('/api/payments/sandbox/confirm', {
    clientSecret: intent.json().clientSecret,
    card: { number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123', postalCode: '12345' },
  });
  expect(paid.statusCode, paid.body).toBe(200);
  return paid.json().purchase.id as string;
}

/** An Expert Review of the study bought by its owner, accepted and delivered by `pro`; the order id. */
export async function deliveredExpertReview(
  ctx: TestContext,
  owner: Patient,
  pro: DirectoryProfessional,
  studyId: string,
): Promise<string> {
  const orderId = await buyService(ctx, owner, {
    serviceName: 'Expert Review',
    studyId,
    providerId: pro.providerId,
  });
  const post = (url: string, payload?: object) =>
    ctx.app.inject({ method: 'POST', url, headers: pro.auth, ...(payload ? { payload } : {}) });
  expect((await post(`/api/professional/orders/${orderId}/accept`)).statusCode).toBe(200);
  const delivered = await post(`/api/professional/orders/${orderId}/deliver`, {
    findings: 'No acute findings.',
    impression: 'Normal study.',
    recommendation: '',
  });
  expect(delivered.statusCode, delivered.body).toBe(200);
  return orderId;
}
