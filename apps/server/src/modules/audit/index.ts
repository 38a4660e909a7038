// modules/audit: what other modules, http/ and the composition root may use. Lint
// (architecture/import-boundaries) refuses imports of this module's other files from outside it.
export { type AuditRepository, type AuditRowJson, createAuditRepository } from './audit.repository';
export {
  actorAudit,
  type AuditActor,
  type AuditEvent,
  type AuditOutcome,
  type AuditRecorder,
  createAuditRecorder,
} from './audit.service';
export { createAuditModule } from './audit.module';
