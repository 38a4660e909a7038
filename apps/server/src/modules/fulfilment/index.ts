// modules/fulfilment: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { createFulfilmentRepository } from './fulfilment.repository';
export { fulfilmentRoutes } from './fulfilment.routes';
export { createFulfilmentService, type FulfilmentService } from './fulfilment.service';
export {
  createReportDelivery,
  type DeliverReport,
  type ReportContent,
  type ReportDelivery,
} from './report-delivery';
export { createFulfilmentModule } from './fulfilment.module';
