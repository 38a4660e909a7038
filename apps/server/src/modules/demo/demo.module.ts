import type { Config } from '../../config';
import type { JobQueue } from '../../jobs/queue';
import type { createOrderEvents } from '../orders';
import { DEMO_FULFIL, demoFulfilJob } from './demo.service';

export interface DemoModuleDeps {
  database: Parameters<typeof demoFulfilJob>[0]['database'];
  fulfilment: Parameters<typeof demoFulfilJob>[0]['fulfilment'];
  queue: Pick<JobQueue, 'send'>;
  config: Pick<Config, 'demoData'>;
  /** Order events (modules/orders): demo readers deliver the orders paid to them. */
  events: Pick<ReturnType<typeof createOrderEvents>, 'on'>;
}

/** Demo readers deliver the orders sent to them (demo.service.ts); only when demo data is on. */
export function createDemoModule({ database, fulfilment, queue, config, events }: DemoModuleDeps) {
  if (config.demoData)
    events.on('paid', async ({ orderId }) => {
      await queue.send(DEMO_FULFIL, { orderId }, { singletonKey: orderId });
    });
  return { jobs: [demoFulfilJob({ database, fulfilment })] };
}
