import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A payment intent as the fake Stripe API keeps it. */
export interface FakeIntent {
  id: string;
  object: 'payment_intent';
  client_secret: string;
  status: string;
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  latest_charge: string | null;
  last_payment_error: { code: string; decline_code?: string; message: string } | null;
}

export interface FakeRefund {
  id: string;
  object: 'refund';
  amount: number;
  payment_intent: string;
  status: 'succeeded';
}

/** A request the fake received (method, path, form body, idempotency key). */
export interface SeenRequest {
  method: string;
  path: string;
  form: Record<string, string>;
  idempotencyKey: string | undefined;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

/**
 * The few endpoints of Stripe's API the adapter (apps/server/src/ports/payments/stripe-processor.ts)
 * calls: create and retrieve a payment intent, create a refund; idempotency keys answer the first
 * response again, as Stripe does. `succeed` plays the browser confirming with Stripe.js.
 */
export async function startFakeStripe() {
  const intents = new Map<string, FakeIntent>();
  const refunds = new Map<string, FakeRefund>();
  const cards = new Map<string, { brand: string; last4: string }>();
  const byKey = new Map<string, { status: number; body: unknown }>();
  const seen: SeenRequest[] = [];

  const chargeOf = (intent: FakeIntent) => {
    const card = cards.get(intent.id);
    return intent.latest_charge && card
      ? {
          id: intent.latest_charge,
          object: 'charge',
          payment_method_details: { type: 'card', card: { brand: card.brand, last4: card.last4 } },
        }
      : intent.latest_charge;
  };

  async function handle(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const url = new URL(req.url ?? '/', 'http://stripe.test');
    const form = req.method === 'POST' ? await readForm(req) : {};
    const key = req.headers['idempotency-key'];
    const idempotencyKey = typeof key === 'string' ? key : undefined;
    seen.push({ method: req.method ?? '', path: url.pathname, form, idempotencyKey });
    if (req.headers.authorization !== 'Bearer sk_test_fake')
      return { status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key' } } };
    if (idempotencyKey && byKey.has(`${url.pathname}:${idempotencyKey}`))
      return byKey.get(`${url.pathname}:${idempotencyKey}`)!;
    let answer: { status: number; body: unknown };
    const intentMatch = /^\/v1\/payment_intents\/(pi_[A-Za-z0-9_]+)$/.exec(url.pathname);
    if (req.method === 'POST' && url.pathname === '/v1/payment_intents') {
      const piId = id('pi');
      const metadata: Record<string, string> = {};
      for (const [k, v] of Object.entries(form)) {
        const m = /^metadata\[(.+)\]$/.exec(k);
        if (m) metadata[m[1]!] = v;
      }
      const intent: FakeIntent = {
        id: piId,
        object: 'payment_intent',
        client_secret: `${piId}_secret_${randomBytes(12).toString('hex')}`,
        status: 'requires_payment_method',
        amount: Number(form.amount),
        currency: form.currency ?? 'usd',
        metadata,
        latest_charge: null,
        last_payment_error: null,
      };
      intents.set(piId, intent);
      answer = { status: 200, body: intent };
    } else if (req.method === 'GET' && intentMatch) {
      const intent = intents.get(intentMatch[1]!);
      answer = intent
        ? {
            status: 200,
            body: {
              ...intent,
              latest_charge: [...url.searchParams].some(
                ([k, v]) => /^expand\[\d*\]$/.test(k) && v === 'latest_charge',
              )
                ? chargeOf(intent)
                : intent.latest_charge,
            },
          }
        : {
            status: 404,
            body: {
              error: {
                type: 'invalid_request_error',
                code: 'resource_missing',
                message: 'No such payment_intent',
              },
            },
          };
    } else if (req.method === 'POST' && url.pathname === '/v1/refunds') {
      const intent = intents.get(form.payment_intent ?? '');
      const already = [...refunds.values()]
        .filter((r) => r.payment_intent === intent?.id)
        .reduce((n, r) => n + r.amount, 0);
      const amount = form.amount ? Number(form.amount) : (intent?.amount ?? 0) - already;
      if (!intent || intent.status !== 'succeeded' || amount <= 0 || already + amount > intent.amount) {
        answer = {
          status: 400,
          body: {
            error: {
              type: 'invalid_request_error',
              code: 'charge_already_refunded',
              message: 'Refund refused',
            },
          },
        };
      } else {
        const refund: FakeRefund = {
          id: id('re'),
          object: 'refund',
          amount,
          payment_intent: intent.id,
          status: 'succeeded',
        };
        refunds.set(refund.id, refund);
        answer = { status: 200, body: refund };
      }
    } else {
      answer = {
        status: 404,
        body: { error: { type: 'invalid_request_error', message: 'Unknown endpoint' } },
      };
    }
    if (idempotencyKey && answer.status < 500) byKey.set(`${url.pathname}:${idempotencyKey}`, answer);
    return answer;
  }

  const server: Server = createServer((req, res) => {
    handle(req).then(
      ({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
        res.end(JSON.stringify(body));
      },
      (err: Error) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'api_error', message: err.message } }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    intents,
    refunds,
    seen,
    /** The browser confirmed with Stripe.js and the card paid. */
    succeed(intentId: string, card = { brand: 'visa', last4: '4242' }): FakeIntent {
      const intent = intents.get(intentId)!;
      intent.status = 'succeeded';
      intent.latest_charge = id('ch');
      cards.set(intentId, card);
      return intent;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;
