import type { Logger } from 'pino';
import { createAuditRepository } from './audit.repository';
import { createAuditRecorder } from './audit.service';

export interface AuditModuleDeps {
  db: Parameters<typeof createAuditRepository>[0];
  log: Logger;
}

/** The audit trail: one recorder every module writes through, and the repository batch writers use. */
export function createAuditModule({ db, log }: AuditModuleDeps) {
  const auditRepo = createAuditRepository(db);
  return { auditRepo, audit: createAuditRecorder(auditRepo, log) };
}
