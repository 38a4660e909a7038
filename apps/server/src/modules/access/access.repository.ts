import { and, asc, desc, eq, exists, isNull, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  analysisServices,
  orderFulfilments,
  orders,
  providers,
  studies,
  studyShares,
  users,
  vendorCredentials,
} from '../../db/schema/index';
import type { Principal } from './principal';

export type StudyRow = typeof studies.$inferSelect;
/** A study named by our id or by its Study Instance UID (DICOMweb). */
export type StudyTarget = { id: string } | { uid: string };

/**
 * A live share of the study with this user, while its owner allows sharing (Settings, 'Share
 * Medical Records'): turning that off closes every recipient's access until it is on again.
 */
function sharedWith(userId: string | Placeholder): SQL {
  return exists(
    sql`(select 1 from ${studyShares} join ${users} on ${users.id} = ${studyShares.ownerId}
         where ${studyShares.studyId} = ${studies.id} and ${studyShares.targetUserId} = ${userId}
           and ${studyShares.revokedAt} is null and ${studyShares.ownerId} = ${studies.ownerId}
           and ${users.shareMedicalData})`,
  );
}

/**
 * An order of the study that this professional accepted and that is still in progress, sent to a
 * provider still linked to their account: they may read the study for the order's life only.
 */
function assignedTo(userId: string | Placeholder): SQL {
  return exists(
    sql`(select 1 from ${orders} o
         join ${providers} p on p.id = o.provider_id
         join ${orderFulfilments} f on f.order_id = o.id
         where o.study_id = ${studies.id} and o.status = 'in_progress'
           and p.linked_user_id = ${userId} and f.professional_id = ${userId})`,
  );
}

/**
 * An external AI vendor's credential (modules/vendors) for the study of an order that awaits this
 * vendor: live (not revoked, not expired), issued to the order's own provider for the order's study,
 * the order an AI order in progress or a Complete Analysis Package still open without its automated
 * part. Once the vendor reports, or the order completes, is refunded or cancelled, it opens nothing.
 */
function vendorCredentialFor(p: PrincipalParams): SQL {
  const { credentialId } = p;
  return exists(
    sql`(select 1 from ${vendorCredentials} c
         join ${orders} o on o.id = c.order_id
         join ${analysisServices} s on s.id = o.service_id
         left join ${orderFulfilments} f on f.order_id = o.id
         where c.id = ${credentialId} and c.provider_id = ${p.userId} and o.provider_id = c.provider_id
           and c.study_id = ${studies.id} and o.study_id = ${studies.id}
           and c.revoked_at is null and c.expires_at > now()
           and ((s.type = 'AI' and o.status = 'in_progress')
             or (s.type = 'Combined' and o.status in ('pending_approval', 'in_progress')
                 and f.automated_report_at is null)))`,
  );
}

/**
 * A study link's credential (modules/links): live (not expired), its link live (not revoked,
 * paused, disabled or expired), the study on the link, still owned by the link's owner (a transfer
 * ends the link for it) and that owner still allowing sharing ('Share Medical Records') with an
 * active account. Read on every request, so ending a link ends it in every process at once.
 */
function linkCredentialFor(p: PrincipalParams): SQL {
  const { credentialId } = p;
  return exists(
    sql`(select 1 from study_link_credentials c
         join study_links l on l.id = c.link_id
         join study_link_studies ls on ls.link_id = l.id
         join ${users} u on u.id = l.owner_id
         where c.id = ${credentialId} and c.expires_at > now()
           and ls.study_id = ${studies.id} and l.owner_id = ${studies.ownerId}
           and l.revoked_at is null and l.paused_at is null and l.disabled_at is null
           and l.expires_at > now()
           and u.share_medical_data and u.account_status = 'active')`,
  );
}

/**
 * The one statement of which studies a principal may see: their own, those shared with them and
 * those of orders they are working on (read only, see access.service.ts), processed and not being
 * deleted; a viewer grant narrows that to its one study. A vendor credential sees only its order's
 * study, and only while the order awaits the vendor.
 * `includeDeleting` lets an owner finish a delete that stopped half-way.
 */
function visibleTo(p: Principal, opts: { includeDeleting?: boolean } = {}): SQL {
  return visibleToShape(shapeOf(p), paramsOf(p), opts);
}

/** What decides the text of visibleTo's statement (the rest are its parameters). */
interface PrincipalShape {
  kind: 'vendor' | 'link' | 'user';
  /** A viewer grant or credential narrows the statement to one study. */
  narrowed: boolean;
}
const NO_CREDENTIAL = '00000000-0000-0000-0000-000000000000';

function shapeOf(p: Principal): PrincipalShape {
  return { kind: p.via === 'vendor' ? 'vendor' : p.link ? 'link' : 'user', narrowed: !!p.studyId };
}

/** A principal's values in visibleTo: the values themselves, or a prepared statement's placeholders. */
interface PrincipalParams {
  userId: string | Placeholder;
  credentialId: string | Placeholder;
  studyId: string | Placeholder;
}

function paramsOf(p: Principal): PrincipalParams {
  return {
    userId: p.userId,
    credentialId: p.vendor?.credentialId ?? p.link?.credentialId ?? NO_CREDENTIAL,
    studyId: p.studyId ?? NO_CREDENTIAL,
  };
}

function visibleToShape(
  shape: PrincipalShape,
  p: PrincipalParams,
  opts: { includeDeleting?: boolean } = {},
): SQL {
  return and(
    shape.kind === 'vendor'
      ? vendorCredentialFor(p)
      : shape.kind === 'link'
        ? linkCredentialFor(p)
        : or(eq(studies.ownerId, p.userId), sharedWith(p.userId), assignedTo(p.userId)),
    eq(studies.processStatus, 'completed'),
    opts.includeDeleting ? undefined : isNull(studies.deletingSince),
    shape.narrowed ? eq(studies.id, p.studyId) : undefined,
  )!;
}

/** A study shared with a user, when it was shared and its owner (Shared Studies tab). */
export interface SharedStudyRow {
  study: StudyRow;
  sharedAt: Date;
  ownerName: string | null;
  ownerEmail: string;
}

/**
 * The access check runs on every study request (a viewer sends hundreds a minute), so its
 * statement is built once per shape of principal and prepared, instead of composed per request.
 */
function findVisibleStatements(db: Db) {
  const prepared = new Map<string, ReturnType<typeof prepare>>();
  function prepare(shape: PrincipalShape, by: 'id' | 'uid', includeDeleting: boolean) {
    const name = `access_find_visible_${shape.kind}_${shape.narrowed ? 'narrowed' : 'all'}_${by}${includeDeleting ? '_deleting' : ''}`;
    const target = sql.placeholder('target');
    return db
      .select()
      .from(studies)
      .where(
        and(
          by === 'id' ? eq(studies.id, target) : eq(studies.studyInstanceUid, target),
          visibleToShape(
            shape,
            {
              userId: sql.placeholder('userId'),
              credentialId: sql.placeholder('credentialId'),
              studyId: sql.placeholder('studyId'),
            },
            { includeDeleting },
          ),
        ),
      )
      .limit(1)
      .prepare(name);
  }
  return (shape: PrincipalShape, by: 'id' | 'uid', includeDeleting: boolean) => {
    const key = `${shape.kind}|${shape.narrowed}|${by}|${includeDeleting}`;
    let statement = prepared.get(key);
    if (!statement) {
      statement = prepare(shape, by, includeDeleting);
      prepared.set(key, statement);
    }
    return statement;
  };
}

export function createAccessRepository(db: Db) {
  const findVisibleStatement = findVisibleStatements(db);

  return {
    /** Whether the study is shared with the user (not only open to them through an order). */
    async isSharedWith(userId: string, studyId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: studies.id })
        .from(studies)
        .where(and(eq(studies.id, studyId), sharedWith(userId)))
        .limit(1);
      return !!row;
    },
    async findVisible(
      p: Principal,
      target: StudyTarget,
      opts: { includeDeleting?: boolean } = {},
    ): Promise<StudyRow | undefined> {
      const by = 'id' in target ? 'id' : 'uid';
      const [row] = await findVisibleStatement(shapeOf(p), by, !!opts.includeDeleting).execute({
        ...paramsOf(p),
        target: 'id' in target ? target.id : target.uid,
      });
      return row;
    },
    async listVisible(p: Principal): Promise<StudyRow[]> {
      return db.select().from(studies).where(visibleTo(p)).orderBy(asc(studies.createdAt), asc(studies.id));
    },
    /**
     * A value that changes whenever the user's Shared Studies list may have: the set of live shares
     * to them (count, ids), and for each sharing owner their studies list version (bumped by a
     * trigger on every change to their studies), name, email and sharing switch. `pending` counts
     * shares still waiting for the user's email (attached once the account has confirmed it).
     */
    async sharedWithFingerprint(
      userId: string,
      emailNormalized: string,
    ): Promise<{ version: string; pending: number; owners: string[] }> {
      type Row = {
        n: number;
        ids: string | null;
        owners: string | null;
        owner_ids: string[] | null;
        pending: number;
      };
      const result = await db.execute<Row>(sql`
        with mine as materialized (
          select s.owner_id, s.id from ${studyShares} s
          where s.target_user_id = ${userId} and s.revoked_at is null
        ), owners as (select owner_id from mine group by owner_id)
        select
          (select count(*) from mine)::int as n,
          (select sum(hashtext(id::text)::bigint) from mine)::text as ids,
          (select string_agg(o.owner_id::text || ':' || coalesce(v.version, 0)::text || ':'
              || u.share_medical_data::text || ':' || coalesce(u.name, '') || ':' || u.email, ','
              order by o.owner_id)
            from owners o join ${users} u on u.id = o.owner_id
            left join study_list_versions v on v.owner_id = o.owner_id) as owners,
          (select array_agg(owner_id::text) from owners) as owner_ids,
          (select count(*) from ${studyShares} p
            where p.email_normalized = ${emailNormalized} and p.target_user_id is null
              and p.revoked_at is null)::int as pending`);
      const row = (result as unknown as { rows: Row[] }).rows[0];
      return {
        version: `${row?.n ?? 0}|${row?.ids ?? ''}|${row?.owners ?? ''}`,
        pending: Number(row?.pending ?? 0),
        owners: row?.owner_ids ?? [],
      };
    },

    /** The studies others share with this user that they may open now, newest share first. */
    async listSharedWith(userId: string): Promise<SharedStudyRow[]> {
      return db
        .select({
          study: studies,
          sharedAt: studyShares.createdAt,
          ownerName: users.name,
          ownerEmail: users.email,
        })
        .from(studyShares)
        .innerJoin(studies, eq(studies.id, studyShares.studyId))
        .innerJoin(users, eq(users.id, studies.ownerId))
        .where(
          and(
            eq(studyShares.targetUserId, userId),
            isNull(studyShares.revokedAt),
            eq(studyShares.ownerId, studies.ownerId),
            eq(users.shareMedicalData, true),
            eq(studies.processStatus, 'completed'),
            isNull(studies.deletingSince),
          ),
        )
        .orderBy(desc(studyShares.createdAt), desc(studyShares.id));
    },
  };
}
export type AccessRepository = ReturnType<typeof createAccessRepository>;
