import { and, eq, inArray, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  analysisRuns,
  analysisServices,
  orderFulfilments,
  orders,
  providers,
  studies,
  vendorCallbacks,
  vendorCredentials,
} from '../../db/schema/index';

/** A directory provider's vendor settings. */
export interface ProviderVendorRow {
  id: string;
  name: string;
  webhookUrl: string | null;
  secretSealed: string | null;
  secretCreatedAt: Date | null;
}

/** An order as sending it to, or taking a report from, its vendor needs it. */
export interface VendorOrderView {
  order: { id: string; userId: string; status: string; studyId: string | null; providerId: string };
  service: { id: string; name: string; type: 'AI' | 'Expert' | 'Combined' };
  provider: ProviderVendorRow;
  study: {
    id: string;
    studyInstanceUid: string;
    modalities: string[];
    seriesCount: number;
    instanceCount: number;
  } | null;
  /** When a Complete Analysis Package's automated part arrived. */
  automatedReportAt: Date | null;
}

export interface CredentialRow {
  id: string;
  orderId: string;
  providerId: string;
  studyId: string;
  expiresAt: Date;
  revokedAt: Date | null;
}

const providerColumns = {
  id: providers.id,
  name: providers.name,
  webhookUrl: providers.vendorWebhookUrl,
  secretSealed: providers.vendorSecretSealed,
  secretCreatedAt: providers.vendorSecretCreatedAt,
};

/** Directory providers' vendor settings. */
function createVendorProvidersRepository(db: Db) {
  return {
    /** A directory provider (retired or not) with its vendor settings. */
    async findProvider(providerId: string): Promise<ProviderVendorRow | undefined> {
      const [row] = await db
        .select(providerColumns)
        .from(providers)
        .where(and(eq(providers.id, providerId), eq(providers.listed, 'directory')))
        .limit(1);
      return row;
    },

    /** Sets the webhook URL and, when given, a new sealed secret. */
    async updateProvider(
      providerId: string,
      values: { webhookUrl: string | null; secretSealed?: string | null; secretCreatedAt?: Date | null },
      at: Date,
    ): Promise<void> {
      await db
        .update(providers)
        .set({
          vendorWebhookUrl: values.webhookUrl,
          ...(values.secretSealed !== undefined
            ? {
                vendorSecretSealed: values.secretSealed,
                vendorSecretCreatedAt: values.secretCreatedAt ?? null,
              }
            : {}),
          updatedAt: at,
        })
        .where(and(eq(providers.id, providerId), eq(providers.listed, 'directory')));
    },
  };
}

/** Orders as vendors see them, the signatures they were sent with, and their reports' arrival. */
function createVendorOrdersRepository(db: Db) {
  return {
    async findOrder(orderId: string): Promise<VendorOrderView | undefined> {
      const [row] = await db
        .select({
          order: {
            id: orders.id,
            userId: orders.userId,
            status: orders.status,
            studyId: orders.studyId,
            providerId: orders.providerId,
          },
          service: { id: analysisServices.id, name: analysisServices.name, type: analysisServices.type },
          provider: providerColumns,
          study: {
            id: studies.id,
            studyInstanceUid: studies.studyInstanceUid,
            modalities: studies.modalities,
            seriesCount: studies.seriesCount,
            instanceCount: studies.instanceCount,
          },
          automatedReportAt: orderFulfilments.automatedReportAt,
        })
        .from(orders)
        .innerJoin(analysisServices, eq(analysisServices.id, orders.serviceId))
        .innerJoin(providers, eq(providers.id, orders.providerId))
        .leftJoin(studies, and(eq(studies.id, orders.studyId), isNull(studies.deletingSince)))
        .leftJoin(orderFulfilments, eq(orderFulfilments.orderId, orders.id))
        .where(eq(orders.id, orderId))
        .limit(1);
      if (!row) return undefined;
      return { ...row, study: row.study?.id ? row.study : null };
    },

    /** Whether this provider was given a credential for the order (it was sent the order). */
    async wasSent(orderId: string, providerId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: vendorCredentials.id })
        .from(vendorCredentials)
        .where(and(eq(vendorCredentials.orderId, orderId), eq(vendorCredentials.providerId, providerId)))
        .limit(1);
      return !!row;
    },

    /**
     * Records a callback's signature; false when it was received before (a replay). Signatures
     * older than `forgetBefore` can no longer pass the timestamp check, so they are removed.
     */
    async rememberSignature(
      signatureHash: string,
      providerId: string,
      orderId: string,
      at: Date,
      forgetBefore: Date,
    ): Promise<boolean> {
      await db.delete(vendorCallbacks).where(lt(vendorCallbacks.receivedAt, forgetBefore));
      const rows = await db
        .insert(vendorCallbacks)
        .values({ signatureHash, providerId, orderId, receivedAt: at })
        .onConflictDoNothing()
        .returning({ signatureHash: vendorCallbacks.signatureHash });
      return rows.length > 0;
    },

    /** The order's automated part arrived from its vendor (analysis_runs, see modules/analysis). */
    async markReported(orderId: string, at: Date): Promise<void> {
      await db
        .update(analysisRuns)
        .set({ status: 'delivered', lastError: null, updatedAt: at })
        .where(
          and(eq(analysisRuns.orderId, orderId), inArray(analysisRuns.status, ['queued', 'running', 'sent'])),
        );
    },
  };
}

/** Vendors' DICOMweb credentials, one per order attempt. */
function createVendorCredentialsRepository(db: Db) {
  return {
    /** A new credential for the order; earlier ones of the order end (each attempt gets its own). */
    async issueCredential(c: Omit<CredentialRow, 'id' | 'revokedAt'> & { tokenHash: string }, at: Date) {
      return db.transaction(async (tx) => {
        await tx
          .update(vendorCredentials)
          .set({ revokedAt: at })
          .where(and(eq(vendorCredentials.orderId, c.orderId), isNull(vendorCredentials.revokedAt)));
        const [row] = await tx
          .insert(vendorCredentials)
          .values({ ...c, createdAt: at })
          .returning({ id: vendorCredentials.id });
        return row!.id;
      });
    },

    async findCredential(tokenHash: string): Promise<CredentialRow | undefined> {
      const [row] = await db
        .select({
          id: vendorCredentials.id,
          orderId: vendorCredentials.orderId,
          providerId: vendorCredentials.providerId,
          studyId: vendorCredentials.studyId,
          expiresAt: vendorCredentials.expiresAt,
          revokedAt: vendorCredentials.revokedAt,
        })
        .from(vendorCredentials)
        .where(eq(vendorCredentials.tokenHash, tokenHash))
        .limit(1);
      return row;
    },

    async revokeCredential(id: string, at: Date): Promise<void> {
      await db
        .update(vendorCredentials)
        .set({ revokedAt: at })
        .where(and(eq(vendorCredentials.id, id), isNull(vendorCredentials.revokedAt)));
    },

    /** Ends every live credential of the order; answers how many. */
    async revokeForOrder(orderId: string, at: Date): Promise<number> {
      const rows = await db
        .update(vendorCredentials)
        .set({ revokedAt: at })
        .where(and(eq(vendorCredentials.orderId, orderId), isNull(vendorCredentials.revokedAt)))
        .returning({ id: vendorCredentials.id });
      return rows.length;
    },
  };
}

/** External AI vendors: their webhook settings, DICOMweb credentials and received callbacks. */
export function createVendorsRepository(db: Db) {
  return {
    ...createVendorProvidersRepository(db),
    ...createVendorOrdersRepository(db),
    ...createVendorCredentialsRepository(db),
  };
}
export type VendorsRepository = ReturnType<typeof createVendorsRepository>;
