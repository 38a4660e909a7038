import type { Logger } from 'pino';

/** How an order ended: nothing more is done for it, and every credential it opened ends. */
export type OrderEnd = 'completed' | 'refunded' | 'cancelled' | 'declined';

/** What happens to orders that other modules act on, with what they need to know. */
export interface OrderEventMap {
  /** The order was paid (once per order); `status` is where it starts (orders.service.ts). */
  paid: { orderId: string; status: string };
  /** The patient gave an order waiting for data a study it can read (POST /api/orders/{id}/study). */
  studyAttached: { orderId: string; status: string };
  /** The order reached a final state. */
  ended: { orderId: string; status: OrderEnd };
}
export type OrderEventName = keyof OrderEventMap;
type Handler<E extends OrderEventName> = (event: OrderEventMap[E]) => Promise<void>;

/**
 * The order-events hub. Orders are paid and refunded by the orders module, delivered by fulfilment,
 * and acted on by the automated analysis and the vendors modules, which depend on orders in turn
 * (a failed analysis refunds its order). Instead of the emitters knowing their listeners, each
 * listener subscribes here once the composition root (services.ts) has built it.
 *
 * `emit` runs the handlers one after another and waits for them; a handler's failure is logged and
 * never reaches the emitter (a payment stands whatever a listener does; analysis-sweep catches up).
 */
export function createOrderEvents(log: Pick<Logger, 'error'>) {
  const handlers: { [E in OrderEventName]: Array<Handler<E>> } = { paid: [], studyAttached: [], ended: [] };
  return {
    on<E extends OrderEventName>(name: E, handler: Handler<E>): void {
      handlers[name].push(handler);
    },
    async emit<E extends OrderEventName>(name: E, event: OrderEventMap[E]): Promise<void> {
      for (const handler of handlers[name]) {
        try {
          await handler(event);
        } catch (err) {
          log.error({ err, event: name, orderId: event.orderId }, 'order event handler failed');
        }
      }
    },
  };
}
export type OrderEvents = ReturnType<typeof createOrderEvents>;
/** What an emitting module is given. */
export type OrderEventsEmitter = Pick<OrderEvents, 'emit'>;
