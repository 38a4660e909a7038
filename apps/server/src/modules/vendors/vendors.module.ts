import type { Logger } from 'pino';
import type { Config } from '../../config';
import { VENDOR_REPORT_TIMEOUT_MS } from '../analysis';
import type { createOrderEvents } from '../orders';
import { vendorsAdminRoutes } from './vendors-admin.routes';
import { createVendorsRepository } from './vendors.repository';
import { vendorsRoutes } from './vendors.routes';
import { createVendorsService } from './vendors.service';

type ServiceDeps = Parameters<typeof createVendorsService>[0];

export interface VendorsModuleDeps extends Pick<ServiceDeps, 'audit' | 'requireRecentSignIn' | 'now'> {
  /** Report delivery (modules/fulfilment): vendors' reports are delivered through it. */
  reportDelivery: { deliverReport: ServiceDeps['deliver'] };
  db: Parameters<typeof createVendorsRepository>[0];
  log: Logger;
  config: Pick<Config, 'sessionSecret' | 'publicUrl' | 'vendorAllowLoopback' | 'vendorWebhookTimeoutMs'>;
  /** Order events (modules/orders): an ended order ends its vendor's credential. */
  events: Pick<ReturnType<typeof createOrderEvents>, 'on'>;
}

/** External AI vendors: webhook settings, orders sent to them, their credentials and reports. */
export function createVendorsModule({ db, log, config, events, reportDelivery, ...deps }: VendorsModuleDeps) {
  const vendors = createVendorsService({
    repo: createVendorsRepository(db),
    sessionSecret: config.sessionSecret,
    audit: deps.audit,
    deliver: reportDelivery.deliverReport,
    requireRecentSignIn: deps.requireRecentSignIn,
    log: log.child({ module: 'vendors' }),
    publicUrl: config.publicUrl,
    allowLoopbackHttp: config.vendorAllowLoopback,
    webhookTimeoutMs: config.vendorWebhookTimeoutMs,
    // A vendor's credential lives as long as analysis waits for its report.
    credentialTtlMs: VENDOR_REPORT_TIMEOUT_MS,
    now: deps.now,
  });
  events.on('ended', ({ orderId }) => vendors.endOrder(orderId));
  return { vendors, routes: () => [vendorsAdminRoutes(vendors), vendorsRoutes(vendors)] };
}
