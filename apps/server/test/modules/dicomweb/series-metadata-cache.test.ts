import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../helpers/dicom-ingest';
import { makeDicom, uid } from '../../helpers/studies';
import { createTestContext, eventually, registerPatient, type TestContext } from '../../helpers/test-app';

// A series' metadata is built from its files once and kept in the database for the series'
// revision, which the transaction that changes the series' instances raises: a later request on
// any node sees the kept copy is out of date without reading the files.

type Json = Array<Record<string, { Value?: unknown[] }>>;

describe('cached series metadata', () => {
  let ctx: TestContext;
  let owner: { id: string; auth: { authorization: string } };
  const studyUid = uid();
  const seriesA = uid();
  const seriesB = uid();
  const sops = [uid(), uid(), uid()];

  beforeAll(async () => {
    ctx = await createTestContext();
    const data = (await registerPatient(ctx, 'metadata-cache@example.com')).json().data as {
      id: string;
      authToken: string;
    };
    owner = { id: data.id, auth: { authorization: `Bearer ${data.authToken}` } };
  });
  afterAll(async () => {
    await ctx.close();
  });

  const file = (seriesUid: string, sopUid: string, instanceNumber: number, rows = 8) =>
    makeDicom({ studyUid, seriesUid, sopUid, instanceNumber, rows });
  const metadata = async (seriesUid: string) => {
    const res = await ctx.app.inject({
      url: `/dicomweb/studies/${studyUid}/series/${seriesUid}/metadata`,
      headers: owner.auth,
    });
    expect(res.statusCode).toBe(200);
    return res.json() as Json;
  };
  const sopsOf = (json: Json) => json.map((i) => i['00080018']!.Value![0]);
  /** The kept copy of a series' metadata: for which revision, of how many instances. */
  const kept = async (seriesUid: string) => {
    const res = await ctx.services.database.sql.executeSql(
      `select c.version, c.instance_count as n, s.revision from series_metadata_cache c
       join series s on s.id = c.series_id where s.series_instance_uid = $1`,
      [seriesUid],
    );
    return res.rows[0] as { version: string; n: number; revision: number } | undefined;
  };

  it('is replaced when an instance is added to the series, and answered from the copy otherwise', async () => {
    await ingestFiles(ctx, owner.id, [file(seriesA, sops[0]!, 1), file(seriesA, sops[1]!, 2)]);
    expect(sopsOf(await metadata(seriesA))).toEqual([sops[0], sops[1]]);
    await eventually(async () => ((await kept(seriesA))?.n === 2 ? true : undefined));
    const first = (await kept(seriesA))!;
    expect(first.version).toBe(String(first.revision));

    // The same files again change nothing: the copy stays current.
    await ingestFiles(ctx, owner.id, [file(seriesA, sops[0]!, 1), file(seriesA, sops[1]!, 2)]);
    expect((await kept(seriesA))!.revision).toBe(first.revision);

    await ingestFiles(ctx, owner.id, [file(seriesA, sops[2]!, 3)]);
    expect((await kept(seriesA))!.revision).toBeGreaterThan(first.revision);
    expect(sopsOf(await metadata(seriesA))).toEqual(sops);
    await eventually(async () => ((await kept(seriesA))?.n === 3 ? true : undefined));
    const second = (await kept(seriesA))!;
    expect(second.version).toBe(String(second.revision));
  });

  it('is replaced when a file changes, and when an instance leaves the series for another', async () => {
    expect(sopsOf(await metadata(seriesA))).toEqual(sops);
    // The second instance uploaded again, changed: 16 rows instead of 8.
    await ingestFiles(ctx, owner.id, [file(seriesA, sops[1]!, 2, 16)]);
    const changed = (await metadata(seriesA)).find((i) => i['00080018']!.Value![0] === sops[1])!;
    expect(changed['00280010']!.Value).toEqual([16]);

    // The third uploaded again in another series: it moves there.
    await ingestFiles(ctx, owner.id, [file(seriesB, sops[2]!, 1, 12)]);
    expect(sopsOf(await metadata(seriesA))).toEqual([sops[0], sops[1]]);
    expect(sopsOf(await metadata(seriesB))).toEqual([sops[2]]);
    // Both copies are written after the answer is sent.
    await eventually(async () => ((await kept(seriesA))?.n === 2 ? true : undefined));
    await eventually(async () => ((await kept(seriesB))?.n === 1 ? true : undefined));
    const keptB = (await kept(seriesB))!;
    expect(keptB.version).toBe(String(keptB.revision));
  });

  it('a stale copy is never answered, even when it is all there is', async () => {
    const before = await metadata(seriesA);
    await eventually(async () => ((await kept(seriesA))?.n === 2 ? true : undefined));
    // Another node indexes a new instance: only the database tells.
    const sop = uid();
    await ingestFiles(ctx, owner.id, [file(seriesA, sop, 4)]);
    const after = await metadata(seriesA);
    expect(after).toHaveLength(before.length + 1);
    expect(sopsOf(after)).toContain(sop);
  });

  it('is answered from the process’s own copy while the database says it is current, and never after', async () => {
    const current = await metadata(seriesA);
    await eventually(async () => ((await kept(seriesA))?.n === current.length ? true : undefined));
    // The kept bytes spoilt in the database: this process still answers from the copy it holds.
    const sql = ctx.services.database.sql;
    await sql.executeSql(
      `update series_metadata_cache set gzip = '\\x00'::bytea
       where series_id = (select id from series where series_instance_uid = $1)`,
      [seriesA],
    );
    expect(await metadata(seriesA)).toEqual(current);
    // Another node raised the revision (as its index transaction does): the held copy is not used.
    await sql.executeSql(`update series set revision = revision + 1 where series_instance_uid = $1`, [
      seriesA,
    ]);
    expect(await metadata(seriesA)).toEqual(current);
    await eventually(async () => {
      const k = await kept(seriesA);
      return k && k.version === String(k.revision) ? true : undefined;
    });
  });

  it('audits a reader’s repeated reads of one series once in a while, not once per request', async () => {
    const seriesC = uid();
    await ingestFiles(ctx, owner.id, [file(seriesC, uid(), 1)]);
    const reads = async (actorId: string) =>
      (
        await ctx.services.database.sql.executeSql(
          `select count(*)::int as n from audit_events where action = 'dicomweb.metadata' and actor_id = $1`,
          [actorId],
        )
      ).rows[0] as { n: number };
    const before = (await reads(owner.id)).n;
    for (let i = 0; i < 3; i++) await metadata(seriesC);
    await eventually(async () => ((await reads(owner.id)).n > before ? true : undefined));
    expect((await reads(owner.id)).n).toBe(before + 1);
  });
});
