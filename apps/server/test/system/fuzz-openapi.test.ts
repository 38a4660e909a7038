import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifications, users } from '../../src/db/schema/index';
import { hashPassword } from '../../src/modules/auth/password';
import { buildViewerApp } from '../../src/modules/viewer/viewer-app';
import { AUTH_COOKIE, REFRESH_COOKIE } from '../../src/http/session-cookies';
import { ingestFiles } from '../helpers/dicom-ingest';
import { buildZip, makeDicom } from '../helpers/studies';
import { routesOfTree } from '../helpers/route-tree';
import { createTestContext, registerUser, strongPassword, type TestContext } from '../helpers/test-app';

/**
 * API fuzzing driven by the app's own OpenAPI document (plus the routes it hides and the viewer
 * origin's routes): every operation gets malformed, hostile and out-of-schema input from several
 * callers, and no answer may be a 5xx. Generation is seeded, so every run sends the same requests.
 */

const SEED = 0x5eed_f022;
/** Requests per operation; operations with a JSON body get more, their input space is larger. */
const RUNS = 24;
const RUNS_WITH_BODY = 40;
/** Node's default limit for the request line plus headers; larger requests never reach the app. */
const MAX_HEADER_BYTES = 16 * 1024;
const REQUEST_TIMEOUT_MS = 20_000;
/** Copies sent at once of a state-changing request that succeeded, and how many such requests per operation. */
const BURST = 3;
const REPLAYS_PER_OPERATION = 3;

/** `arb` in `percent` % of the samples, otherwise undefined. */
const sometimes = <T>(percent: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  percent <= 0
    ? fc.constant(undefined)
    : percent >= 100
      ? arb
      : fc.oneof(
          { weight: 100 - percent, arbitrary: fc.constant(undefined) },
          { weight: percent, arbitrary: arb },
        );

// ---------------------------------------------------------------------------------------------
// Operations

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  nullable?: boolean;
}

interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: JsonSchema | string;
}

interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

type Origin = 'app' | 'viewer';

interface Operation {
  origin: Origin;
  method: string;
  /** With `{name}` placeholders; `{*}` is a wildcard that may span segments. */
  path: string;
  pathParams: string[];
  query: Array<{ name: string; required: boolean; schema: JsonSchema }>;
  /** Any query key is accepted (QIDO-RS attribute matching). */
  freeFormQuery: boolean;
  body?: JsonSchema;
  documented: boolean;
  /** Ends sessions or deletes data: sent only as a dedicated user (or with no valid credential). */
  destructive: boolean;
}

const DESTRUCTIVE = [
  /^POST \/api\/auth\/logout$/,
  /^POST \/api\/auth\/refresh$/,
  /^DELETE \/api\/auth\/sessions\/\{\}$/,
  /^POST \/api\/auth\/sessions\/revoke-others$/,
  // A new password signs out the user's other sessions.
  /^POST \/api\/auth\/password$/,
  /^DELETE \/api\/studies\/\{\}\/\{\}$/,
  // An admin disabling the other user ends their sessions (and they stay out until enabled).
  /^POST \/api\/admin\/users\/\{\}\/disable$/,
  // So does resetting the other user's second factor.
  /^POST \/api\/admin\/users\/\{\}\/reset-mfa$/,
];

const shapeOf = (method: string, path: string) => `${method} ${path.replace(/\{[^}]*\}/g, '{}')}`;
const paramsOf = (path: string) => [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!);
const asSchema = (s: JsonSchema | string | undefined): JsonSchema => (s && typeof s === 'object' ? s : {});

function fromDocument(
  method: string,
  path: string,
  op: OpenApiOperation,
  origin: Origin,
  documented: boolean,
): Operation {
  const parameters = op.parameters ?? [];
  // A record-typed query schema shows up in the document as two odd parameters, `type` and
  // `additionalProperties`: what it really means is "any key".
  const freeFormQuery = parameters.some((p) => p.in === 'query' && p.name === 'additionalProperties');
  return {
    origin,
    method,
    path,
    pathParams: paramsOf(path),
    freeFormQuery,
    query: parameters
      .filter(
        (p) => p.in === 'query' && !(freeFormQuery && ['type', 'additionalProperties'].includes(p.name)),
      )
      .map((p) => ({ name: p.name, required: p.required === true, schema: asSchema(p.schema) })),
    body: op.requestBody?.content?.['application/json']?.schema,
    documented,
    destructive: origin === 'app' && DESTRUCTIVE.some((re) => re.test(shapeOf(method, path))),
  };
}

function buildOperations(doc: OpenApiDocument, appTree: string, viewerTree: string): Operation[] {
  const ops: Operation[] = [];
  const documented = new Map<string, OpenApiOperation>();
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      const m = method.toUpperCase();
      documented.set(shapeOf(m, path), op);
      ops.push(fromDocument(m, path, op, 'app', true));
    }
  }
  // Routes the document hides (the document itself, tus uploads), with no schema to start from.
  for (const { method, path } of routesOfTree(appTree)) {
    if (!documented.has(shapeOf(method, path))) ops.push(fromDocument(method, path, {}, 'app', false));
  }
  // The viewer origin registers the same DICOMweb routes: reuse their documented parameters.
  for (const { method, path } of routesOfTree(viewerTree)) {
    const twin = documented.get(shapeOf(method, path));
    const op = fromDocument(method, path, twin ?? {}, 'viewer', false);
    if (twin) {
      // Parameter names as documented (the tree shows one name for a node several routes share).
      const named = Object.keys(doc.paths).find(
        (p) => shapeOf(method, p) === shapeOf(method, path) && doc.paths[p]![method.toLowerCase()],
      );
      if (named) {
        op.path = named;
        op.pathParams = paramsOf(named);
      }
    }
    ops.push(op);
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------
// Who calls, and the real values requests may carry

interface Identity {
  userId: string;
  email: string;
  token: string;
  refreshToken: string;
  sessionId: string;
  studyId: string;
  studyUid: string;
  seriesUid: string;
  sopUid: string;
  notificationId: string;
}

const REF_NAMES = [
  'self.userId',
  'self.email',
  'self.token',
  'self.refreshToken',
  'self.sessionId',
  'self.studyId',
  'self.studyUid',
  'self.seriesUid',
  'self.sopUid',
  'self.notificationId',
  'self.uploadName',
  'other.userId',
  'other.email',
  'other.refreshToken',
  'other.sessionId',
  'other.studyId',
  'other.studyUid',
  'other.seriesUid',
  'other.sopUid',
  'other.notificationId',
  'other.uploadName',
  'pro.userId',
  'pro.email',
] as const;
type RefName = (typeof REF_NAMES)[number];

/** A real value (an id, a token) of the caller or of someone else, looked up when the request is sent. */
class Ref {
  constructor(
    readonly name: RefName,
    /** For upload names: the object's uuid. */
    readonly arg = '',
  ) {}
}

type Principal =
  | 'patient'
  | 'patientCookie'
  | 'admin'
  | 'anonymous'
  | 'bogus'
  | 'sacrificial'
  | 'sacrificialCookie'
  | 'uploader'
  | 'uploaderOtherCookie'
  | 'viewer'
  | 'viewerUnbound';

function principalsFor(op: Operation): Array<{ weight: number; arbitrary: fc.Arbitrary<Principal> }> {
  const w = (weight: number, p: Principal) => ({ weight, arbitrary: fc.constant(p) });
  if (op.origin === 'viewer')
    return [w(8, 'viewer'), w(1, 'viewerUnbound'), w(1, 'patient'), w(1, 'anonymous'), w(1, 'bogus')];
  if (op.path.startsWith('/api/uploads'))
    return [w(7, 'uploader'), w(1, 'uploaderOtherCookie'), w(1, 'patient'), w(1, 'anonymous'), w(1, 'bogus')];
  if (op.destructive)
    return [w(4, 'sacrificial'), w(2, 'sacrificialCookie'), w(1, 'anonymous'), w(1, 'bogus')];
  return [
    w(5, 'patient'),
    w(1, 'patientCookie'),
    w(op.path.startsWith('/api/admin') ? 8 : 2, 'admin'),
    w(2, 'anonymous'),
    w(1, 'bogus'),
  ];
}

// ---------------------------------------------------------------------------------------------
// Hostile values

/** Path or query text; `raw` text goes into the URL as written (it may hold broken escapes). */
interface Text {
  text: string;
  raw?: boolean;
}
/** A real value with something appended to it. */
interface Tail {
  ref: Ref;
  tail: string;
}
type Piece = Text | Ref | Tail;

const RAW_SEGMENTS = [
  '%00',
  'a%00b',
  '%E0%A4%A',
  '%ff',
  '%FF%FE',
  '%',
  '%%',
  '%zz',
  '%ED%A0%80',
  '%ED%B0%80',
  'x%ED%A0%80y',
  '%F0%9F%98',
  '%C0%AE%C0%AE',
  '%uD800',
  '..',
  '.',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2f',
  '..%5C..%5Cwindows',
  'a%2Fb',
  '%2F',
  '%20',
  '+',
  '%0D%0ASet-Cookie:%20x=1',
  '\\',
  '~',
  '*',
  '%2A',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '1.2.840.10008.1.2',
  '1..2',
  '.1.2',
  '1.2.',
  '01.2',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  "'%20OR%201=1--",
  '%3Cscript%3E',
  '%22%27%60',
  '%EF%BB%BF',
  '%E2%80%AE',
];

/** Over 10k characters, kept within what fits in one HTTP request line. */
const LONG_SEGMENTS = ['a'.repeat(10_240), '9'.repeat(10_001), '%00'.repeat(3_500), '..%2F'.repeat(2_100)];

const idRefs: RefName[] = [
  'self.userId',
  'self.studyId',
  'self.sessionId',
  'self.notificationId',
  'other.userId',
  'other.studyId',
  'other.sessionId',
  'other.notificationId',
  'pro.userId',
];

/** The real values that fit a parameter or field, by its name (and, for a bare `id`, its route). */
function refsFor(name: string, path = ''): RefName[] {
  if (/^userId$/i.test(name)) return ['self.userId', 'other.userId', 'pro.userId'];
  if (name === 'studyId') return ['self.studyId', 'other.studyId'];
  if (name === 'study' || /studyUID/i.test(name)) return ['self.studyUid', 'other.studyUid'];
  if (name === 'series' || /seriesUID/i.test(name)) return ['self.seriesUid', 'other.seriesUid'];
  if (name === 'instance' || /objectUID/i.test(name)) return ['self.sopUid', 'other.sopUid'];
  if (name === '*' || /prefix/i.test(name)) return ['self.uploadName', 'other.uploadName'];
  if (/email/i.test(name)) return ['self.email', 'other.email', 'pro.email'];
  if (/refresh/i.test(name)) return ['self.refreshToken', 'other.refreshToken'];
  if (/token|challenge|credential|captcha|secret|code/i.test(name))
    return ['self.token', 'self.refreshToken', 'other.refreshToken'];
  if (name === 'id') {
    if (path.includes('/sessions/')) return ['self.sessionId', 'other.sessionId'];
    if (path.includes('/notifications/')) return ['self.notificationId', 'other.notificationId'];
    if (path.includes('/professionals/')) return ['pro.userId', 'other.userId'];
    if (path.includes('/users/')) return ['self.userId', 'other.userId'];
    if (path.includes('/studies/')) return ['self.studyId', 'other.studyId'];
  }
  return idRefs;
}

/** Upload names reuse a few object ids, so that creating, resuming and ending an upload can meet. */
const UPLOAD_IDS = [
  '0b7e1c52-6f3a-4c1e-9d0e-2f4a5b6c7d80',
  '5d1f7a30-2c4b-4e6d-8f90-a1b2c3d4e5f6',
  '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d',
];

const refArb = (names: readonly RefName[]): fc.Arbitrary<Ref> =>
  fc
    .tuple(
      fc.constantFrom(...names),
      fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...UPLOAD_IDS) }, { weight: 1, arbitrary: fc.uuid() }),
    )
    .map(([n, u]) => new Ref(n, u));

const encodedText = (arb: fc.Arbitrary<string>): fc.Arbitrary<Text> => arb.map((text) => ({ text }));
const rawText = (values: string[]): fc.Arbitrary<Text> =>
  fc.constantFrom(...values).map((text) => ({ text, raw: true }));

/** Values of the path segment or query value named `name` (an id, a UID, a frame list, a tag...). */
function hostilePiece(name: string, path = ''): fc.Arbitrary<Piece> {
  const special: string[] = [];
  if (/^frames?$/.test(name))
    special.push(
      '1',
      '2',
      '0',
      '1,2',
      '1,1,1',
      '99999999',
      '9999999',
      '1,',
      ',1',
      '1,,2',
      '1.5',
      '-1',
      Array.from({ length: 1000 }, (_, i) => i + 1).join(','),
      '1,'.repeat(1500) + '1',
    );
  if (name === 'tag')
    special.push('7FE00010', '7fe00010', '00100010', '00080018', 'FFFFFFFF', '7FE0001', 'zzzzzzzz');
  return fc.oneof(
    { weight: 3, arbitrary: refArb(refsFor(name, path)) },
    { weight: 1, arbitrary: refArb(REF_NAMES) },
    { weight: special.length ? 4 : 0, arbitrary: special.length ? rawText(special) : rawText(['1']) },
    { weight: 2, arbitrary: encodedText(fc.uuid()) },
    { weight: 3, arbitrary: rawText(RAW_SEGMENTS) },
    { weight: 2, arbitrary: encodedText(fc.string({ unit: 'binary', maxLength: 40 })) },
    {
      weight: 1,
      arbitrary: encodedText(fc.string({ unit: 'grapheme-ascii', minLength: 65, maxLength: 200 })),
    },
    { weight: 1, arbitrary: rawText(LONG_SEGMENTS) },
    {
      weight: 1,
      arbitrary: encodedText(
        fc.array(fc.nat({ max: 99_999 }), { minLength: 2, maxLength: 40 }).map((n) => n.join('.')),
      ),
    },
    // A real value with something appended.
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          refArb(refsFor(name, path)),
          fc.constantFrom('%00', '%20', '/..', '%2F..', '.', 'x', '%ff', '\\'),
        )
        .map(([ref, tail]): Tail => ({ ref, tail })),
    },
  );
}

/** A value the parameter is meant to take: the caller's own id mostly, someone else's sometimes. */
function validPiece(name: string, path: string): fc.Arbitrary<Piece> {
  if (name === 'frames') return rawText(['1', '1', '2', '1,2']);
  if (name === 'frame') return rawText(['1', '1', '1', '2']);
  if (name === 'tag') return rawText(['7FE00010', '7FE00010', '00100010']);
  // An upload of the caller's that exists (made before the run or by an earlier request).
  if (name === '*')
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...UPLOAD_IDS).map((id) => new Ref('self.uploadName', id)) },
      { weight: 1, arbitrary: realValue(refsFor(name, path)) },
    );
  return realValue(refsFor(name, path));
}

/** One of these real values: the caller's own mostly, someone else's sometimes. */
function realValue(refs: RefName[]): fc.Arbitrary<Ref> {
  const own = refs.filter((r) => r.startsWith('self.'));
  return fc.oneof(
    { weight: 5, arbitrary: refArb(own.length ? own : refs) },
    { weight: 1, arbitrary: refArb(refs) },
  );
}

/** Values of the wrong type for a query parameter or a JSON field. */
const WRONG_QUERY_VALUES = [
  '',
  'true',
  'false',
  '[object Object]',
  '-1',
  '0',
  '1e309',
  '-0',
  '1.5',
  '0x10',
  'NaN',
  'Infinity',
  '99999999999999999999999',
  '9007199254740993',
  '[]',
  '{}',
  'null',
];

const QUERY_KEYS = [
  '__proto__',
  '__proto__[admin]',
  'constructor',
  'constructor[prototype][admin]',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'limit',
  'offset',
  'includefield',
  'fuzzymatching',
  'PatientName',
  'PatientID',
  'StudyDate',
  'StudyTime',
  'AccessionNumber',
  'ModalitiesInStudy',
  'StudyInstanceUID',
  'SeriesInstanceUID',
  'SOPInstanceUID',
  '00100010',
  '0020000D',
  '7FE00010',
  'ReferencedSeriesSequence.SeriesInstanceUID',
  'status',
  'accept',
  'viewport',
  'frameNumber',
  'requestType',
  'contentType',
  'a[b][c]',
  'a[]',
  '',
  '_',
];

const QUERY_VALUES = [
  '*',
  '?',
  '*Doe*',
  'Doe^*',
  '19000101-20991231',
  '20240102',
  '20240102-',
  '-20240102',
  '2024-01-02',
  '-',
  '--',
  '120000-',
  '1.2.3\\1.2.4',
  '1.2.3,1.2.4',
  'all',
  'PatientName,StudyDate',
  '00100010',
  'true',
  'TRUE',
  '10000',
  '10001',
  '999999999',
  '1000000000',
  'image/png',
  'image/jpeg',
  'application/dicom',
  '*/*',
  'text/html',
  '256,256',
  '0,0',
  '2049,2049',
  '64,64,0,0,10,10',
  '9999,1',
  'all,pending',
  'WADO',
  'wado',
];

interface QueryPart {
  key: Piece;
  value?: Piece;
}

function queryValue(name: string, schema: JsonSchema): fc.Arbitrary<Piece> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: validValue(schema, 0, name).map((v): Piece => (v instanceof Ref ? v : { text: String(v) })),
    },
    { weight: 2, arbitrary: rawText(QUERY_VALUES) },
    { weight: 2, arbitrary: encodedText(fc.constantFrom(...WRONG_QUERY_VALUES)) },
    { weight: 3, arbitrary: hostilePiece(name) },
  );
}

function queryArb(op: Operation): fc.Arbitrary<QueryPart[] | Text> {
  const declared = op.query.map((q) =>
    fc.oneof(
      {
        weight: q.required ? 5 : 2,
        arbitrary: queryValue(q.name, q.schema).map((v): QueryPart[] => [
          { key: { text: q.name }, value: v },
        ]),
      },
      { weight: q.required ? 1 : 3, arbitrary: fc.constant<QueryPart[]>([]) },
      // Repeated, bracketed or valueless.
      {
        weight: 1,
        arbitrary: fc
          .array(queryValue(q.name, q.schema), { minLength: 2, maxLength: 4 })
          .map((vs): QueryPart[] => vs.map((v) => ({ key: { text: q.name }, value: v }))),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom('[]', '[a]', '[0][1]', '.x'), queryValue(q.name, q.schema))
          .map(([suffix, v]): QueryPart[] => [{ key: { text: q.name + suffix }, value: v }]),
      },
      { weight: 1, arbitrary: fc.constant<QueryPart[]>([{ key: { text: q.name } }]) },
    ),
  );
  const extra = fc.array(
    fc.record({
      key: fc.oneof(
        { weight: 4, arbitrary: encodedText(fc.constantFrom(...QUERY_KEYS)) },
        { weight: 1, arbitrary: encodedText(fc.string({ unit: 'binary', maxLength: 20 })) },
        { weight: 1, arbitrary: rawText(['%00', '%ff', '%E0%A4%A', '%ED%A0%80', 'a%00b']) },
      ),
      value: fc.oneof(
        { weight: 3, arbitrary: rawText(QUERY_VALUES) },
        { weight: 2, arbitrary: hostilePiece('value') },
        { weight: 1, arbitrary: encodedText(fc.constantFrom(...WRONG_QUERY_VALUES)) },
      ),
    }),
    { maxLength: 3 },
  );
  const structured = fc
    .tuple(fc.tuple(...declared), extra)
    .map(([parts, more]) => [...parts.flat(), ...more]);
  return fc.oneof(
    { weight: 12, arbitrary: structured },
    // Query strings no form would produce.
    {
      weight: 1,
      arbitrary: rawText([
        '&&&',
        '=',
        '=x',
        'a=1&a=2&a=3',
        '%',
        ';a=1',
        '&a',
        '?',
        'a=%E0%A4%A&b=%ff',
        'a=1&'.repeat(2_000),
        `a=${'b'.repeat(12_000)}`,
        'limit=1&limit=2&offset=x&offset=1',
        'includefield=all&includefield=toString',
      ]),
    },
  );
}

/** QIDO-RS matching and paging as a client would ask for it. */
const QIDO_PARTS: Array<[string, string | RefName]> = [
  ['PatientName', '*'],
  ['PatientName', 'Test*'],
  ['PatientID', 'PID-1'],
  ['StudyDate', '20240101-20241231'],
  ['StudyDescription', '*study*'],
  ['ModalitiesInStudy', 'CT'],
  ['Modality', 'MR'],
  ['limit', '1'],
  ['offset', '1'],
  ['includefield', 'all'],
  ['includefield', '00100020,StudyDescription'],
  ['fuzzymatching', 'true'],
  ['StudyInstanceUID', 'self.studyUid'],
  ['SeriesInstanceUID', 'self.seriesUid'],
  ['SOPInstanceUID', 'self.sopUid'],
  ['00100010', 'Test^Patient'],
];

function validQuery(op: Operation): fc.Arbitrary<QueryPart[]> {
  const declared = op.query.map((q) =>
    sometimes(
      q.required ? 100 : 50,
      validValue(q.schema, 0, q.name).map((v): QueryPart => ({
        key: { text: q.name },
        value: v instanceof Ref ? v : { text: String(v) },
      })),
    ),
  );
  const qido = op.freeFormQuery
    ? fc.array(
        fc.constantFrom(...QIDO_PARTS).map(([key, value]): QueryPart => ({
          key: { text: key },
          value: (REF_NAMES as readonly string[]).includes(value)
            ? new Ref(value as RefName)
            : { text: value },
        })),
        { maxLength: 3 },
      )
    : fc.constant([]);
  return fc
    .tuple(fc.tuple(...declared), qido)
    .map(([parts, more]) => [...parts.filter((p): p is QueryPart => p !== undefined), ...more]);
}

// ---------------------------------------------------------------------------------------------
// JSON bodies

/** A value that satisfies the schema, or nearly (string contents are arbitrary); strings may be real values. */
function validValue(schema: JsonSchema | undefined, depth = 0, name = ''): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object') return fc.jsonValue({ maxDepth: 1 });
  let arb: fc.Arbitrary<unknown>;
  const alternatives = schema.anyOf ?? schema.oneOf;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.const !== undefined) arb = fc.constant(schema.const);
  else if (schema.enum?.length) arb = fc.constantFrom(...schema.enum);
  else if (alternatives?.length) arb = fc.oneof(...alternatives.map((s) => validValue(s, depth + 1, name)));
  else if (schema.allOf?.length) arb = validValue(schema.allOf[0], depth + 1, name);
  else if (type === 'string') arb = validString(schema, name);
  else if (type === 'integer')
    arb = fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000_000 });
  else if (type === 'number')
    arb = fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
  else if (type === 'boolean') arb = fc.boolean();
  else if (type === 'array') arb = fc.array(validValue(schema.items, depth + 1, name), { maxLength: 3 });
  else if (type === 'object' && depth < 5) {
    const props = schema.properties ?? {};
    const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, validValue(s, depth + 1, k)]));
    arb = fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
  } else arb = fc.jsonValue({ maxDepth: 1 });
  return schema.nullable ? fc.option(arb, { nil: null, freq: 6 }) : arb;
}

/** Values that mean something to the parameter or field of this name. */
const HINTS: Record<string, string[]> = {
  accept: ['image/jpeg', 'image/png', 'multipart/related; type="image/jpeg"', 'image/*'],
  viewport: ['64,64', '256,128', '1,1', '2048,2048', '64,64,0,0,8,8'],
  contentType: ['application/dicom', 'image/jpeg', 'image/png', 'image/jpeg,application/dicom', '*/*'],
  transferSyntax: ['*', '1.2.840.10008.1.2.1', '1.2.840.10008.1.2'],
  password: [strongPassword, 'short'],
  newPassword: [strongPassword, 'N3w!Passw0rdN3w'],
  mfaSecret: ['123456', '000000', 'ABCD-EFGH-1234'],
  code: ['123456', '000000'],
  mobilePhone: ['+15550100', '555'],
  reason: ['Licence could not be verified'],
  name: ['Ada Lovelace'],
};

function validString(schema: JsonSchema, name: string): fc.Arbitrary<unknown> {
  const minLength = Math.min(schema.minLength ?? 0, 40);
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
  let base: fc.Arbitrary<string> = fc.string({ minLength, maxLength });
  if (schema.format === 'date')
    base = fc
      .date({ min: new Date('1900-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
  else if (schema.format === 'email' || schema.pattern?.includes('@') || /email/i.test(name))
    base = fc.emailAddress();
  else if (schema.pattern) base = fc.stringMatching(new RegExp(schema.pattern));
  const hints = HINTS[name];
  if (hints)
    base = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hints) }, { weight: 1, arbitrary: base });
  const refs = refsFor(name);
  // Ids, UIDs, tokens and emails are mostly real ones; free text only sometimes carries one.
  return refs === idRefs
    ? fc.oneof({ weight: 6, arbitrary: base }, { weight: 1, arbitrary: refArb(refs) })
    : fc.oneof({ weight: 1, arbitrary: base }, { weight: 6, arbitrary: realValue(refs) });
}

/** A request body as sent: JSON (with raw text spliced in place of one field), other text, or bytes. */
interface BodyPlan {
  kind: 'none' | 'json' | 'raw';
  value?: unknown;
  /** Raw JSON text that replaces the `RAW_FIELD` placeholder after serialisation. */
  splice?: string;
  raw?: string | Uint8Array;
  /** Undefined: application/json for JSON; null: no Content-Type header at all. */
  contentType?: string | null;
}

const RAW_FIELD = 'RAW_FIELD_0f7c2e';

const WRONG_TYPE_VALUES: unknown[] = [
  0,
  -1,
  1.5,
  1e308,
  -0,
  true,
  false,
  null,
  [],
  {},
  ['a'],
  { a: 1 },
  '',
  ' ',
  'true',
  '0',
  '2024-02-30',
  '9999-99-99',
  '0000-00-00',
  [[[[]]]],
];

const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'role',
  'accountStatus',
  'isAdmin',
  'id',
  'userId',
  'ownerId',
  'passwordHash',
  'usedStorageBytes',
  '',
  'a\u0000b',
  '\ud800',
  'x'.repeat(2_000),
];

const HUGE_LENGTHS = [10_001, 65_537, 300_000, 1_048_577];
const DEEP_LEVELS = [33, 200, 5_000, 60_000];

const NOT_JSON: Array<string | Uint8Array> = [
  '',
  ' ',
  '{',
  '}',
  '[',
  '{"a":',
  '{"a":1',
  '{a:1}',
  "{'a':1}",
  'nul',
  'null',
  'true',
  '0',
  '-0',
  '1e999',
  'NaN',
  'Infinity',
  '"str"',
  '[]',
  '[1,2',
  '{"a":1}{"b":2}',
  '{"a":1} trailing',
  '\ufeff{}',
  '\u0000',
  '{"\\ud800":1}',
  '{"a":"\\ud800"}',
  '{"a":"\\udfff\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":"\\uZZZZ"}',
  '{"a":"\\x41"}',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"isAdmin":true}}}',
  '{"a":1,"a":2}',
  '{"a":123456789012345678901234567890}',
  'a=1&b=2',
  '<xml/>',
  'x'.repeat(20_000),
  '['.repeat(100_000),
  new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0x7d]),
  new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
  new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
];

const CONTENT_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'multipart/form-data',
  'application/xml',
  'application/octet-stream',
  'application/offset+octet-stream',
  'application/dicom',
  'image/png',
  '*/*',
  'application',
  'application/',
  ';',
  'application/json; charset=utf-16',
  'application/json; charset=iso-8859-1',
  'application/json;charset="utf-8"',
  'Application/JSON',
  'application/json, text/plain',
  'application/jsonx',
  'application/problem+json',
  'application/json; boundary=x',
  'x'.repeat(2_000),
];

function mutated(schema: JsonSchema | undefined): fc.Arbitrary<BodyPlan> {
  const valid = validValue(schema).map((v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v },
  );
  const keys = [...new Set([...Object.keys(schema?.properties ?? {}), 'value'])];
  const key = fc.constantFrom(...keys);
  const set = (obj: Record<string, unknown>, k: string, v: unknown) => {
    const out = { ...obj };
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  };
  return fc.oneof(
    fc
      .tuple(valid, key, fc.constantFrom(...WRONG_TYPE_VALUES))
      .map(([v, k, bad]): BodyPlan => ({ kind: 'json', value: set(v, k, bad) })),
    fc.tuple(valid, key).map(([v, k]): BodyPlan => {
      const out = { ...v };
      delete out[k];
      return { kind: 'json', value: out };
    }),
    fc
      .tuple(valid, fc.constantFrom(...EXTRA_KEYS), fc.jsonValue({ maxDepth: 2 }))
      .map(([v, k, extra]): BodyPlan => ({ kind: 'json', value: set(v, k, extra) })),
    fc
      .tuple(valid, key, fc.constantFrom(...HUGE_LENGTHS), fc.constantFrom('x', 'é', '\u0000', '😀'))
      .map(([v, k, n, c]): BodyPlan => ({
        kind: 'json',
        value: set(v, k, c.repeat(Math.ceil(n / c.length))),
      })),
    fc
      .tuple(
        valid,
        key,
        fc.constantFrom('a\u0000b', '\u0000', 'a\ud800b', '\udfff', '\ud800\ud800', '\u0000\ud800'),
      )
      .map(([v, k, s]): BodyPlan => ({ kind: 'json', value: set(v, k, s) })),
    fc
      .tuple(
        valid,
        key,
        fc.constantFrom(
          '"\\ud800"',
          '"\\udc00x"',
          '"\\u0000"',
          '"a\\u0000\\ud800"',
          '["\\ud800"]',
          '{"\\ud800":"x"}',
        ),
      )
      .map(([v, k, raw]): BodyPlan => ({ kind: 'json', value: set(v, k, RAW_FIELD), splice: raw })),
    fc
      .tuple(valid, key, fc.constantFrom(...DEEP_LEVELS), fc.boolean())
      .map(([v, k, n, arrays]): BodyPlan => ({
        kind: 'json',
        value: set(v, k, RAW_FIELD),
        splice: arrays ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n),
      })),
    // The whole body of another JSON type.
    fc
      .constantFrom<unknown>(null, [], 0, 'text', true, {}, [{}], [[]])
      .map((value): BodyPlan => ({ kind: 'json', value })),
  );
}

const chunk = fc
  .uint8Array({ minLength: 1, maxLength: 1_024 })
  .map((raw): BodyPlan => ({ kind: 'raw', raw, contentType: 'application/offset+octet-stream' }));

function validBody(op: Operation): fc.Arbitrary<BodyPlan> {
  if (op.path.startsWith('/api/uploads') && op.method === 'PATCH') return chunk;
  if (!op.body) return fc.constant({ kind: 'none' });
  return validValue(op.body).map((value): BodyPlan => ({ kind: 'json', value }));
}

function hostileBody(op: Operation): fc.Arbitrary<BodyPlan> {
  const notJson = fc
    .constantFrom(...NOT_JSON)
    .map((raw): BodyPlan => ({ kind: 'raw', raw, contentType: 'application/json' }));
  // A good JSON body, or no JSON at all, under a content type other than JSON (or none).
  const wrongType = fc
    .tuple(
      fc.constantFrom(...CONTENT_TYPES, null),
      fc.oneof(validValue(op.body), fc.constantFrom(...NOT_JSON)),
    )
    .map(([contentType, content]): BodyPlan =>
      typeof content === 'string' || content instanceof Uint8Array
        ? { kind: 'raw', raw: content, contentType }
        : { kind: 'json', value: content, contentType },
    );
  const none = fc.constant<BodyPlan>({ kind: 'none' });
  if (op.path.startsWith('/api/uploads')) {
    return fc.oneof(
      { weight: 2, arbitrary: none },
      { weight: 2, arbitrary: chunk },
      { weight: 1, arbitrary: notJson },
      { weight: 2, arbitrary: wrongType },
    );
  }
  if (!op.body) {
    return fc.oneof(
      { weight: 8, arbitrary: none },
      { weight: 1, arbitrary: notJson },
      {
        weight: 1,
        arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value): BodyPlan => ({ kind: 'json', value })),
      },
      { weight: 1, arbitrary: wrongType },
    );
  }
  return fc.oneof(
    { weight: 10, arbitrary: mutated(op.body) },
    { weight: 2, arbitrary: notJson },
    { weight: 2, arbitrary: wrongType },
    { weight: 1, arbitrary: none },
    {
      weight: 1,
      arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value): BodyPlan => ({ kind: 'json', value })),
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Headers

/** Header values a real client can send (no CR, LF or NUL; Latin-1 at most). */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

const ACCEPTS = [
  'application/dicom+json',
  'application/json',
  'multipart/related; type="application/dicom"',
  'multipart/related; type="application/dicom"; transfer-syntax=*',
  'multipart/related; type="application/dicom"; transfer-syntax=1.2.840.10008.1.2.4.50',
  'multipart/related; type="application/octet-stream"; transfer-syntax=*',
  'multipart/related; type="application/octet-stream"',
  'multipart/related; type="image/jpeg"',
  'multipart/related; type=',
  'multipart/related',
  'application/octet-stream',
  'image/png',
  'image/jpeg',
  'image/*',
  'image/gif',
  '*/*',
  '*/*;q=0',
  'text/html',
  'application/json;q=0, */*;q=0',
  ';;;',
  ',',
  'multipart/related; type="application/dicom"; transfer-syntax="',
  'a/b,'.repeat(2_000),
];

interface HeaderPlan {
  accept?: string;
  'accept-encoding'?: string;
  range?: string;
  'if-range'?: string;
  'if-none-match'?: string;
  origin?: string;
  'sec-fetch-site'?: string;
  'user-agent'?: string;
  'x-forwarded-for'?: string;
  'content-encoding'?: string;
  cookie?: string;
  'tus-resumable'?: string;
  'upload-length'?: string;
  'upload-offset'?: string;
  'upload-defer-length'?: string;
  'x-http-method-override'?: string;
  /** Upload-Metadata naming this object (a real or a made-up name), or raw junk. */
  uploadMetadata?: Ref | string;
}

const withoutUndefined = (h: Record<string, unknown>): HeaderPlan => {
  const out: HeaderPlan = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) Object.assign(out, { [k]: v });
  return out;
};

/** The media types a DICOMweb client asks for, by kind of resource. */
const DICOMWEB_ACCEPTS = {
  json: ['application/dicom+json', 'application/json', '*/*'],
  dicom: [
    'multipart/related; type="application/dicom"; transfer-syntax=*',
    'multipart/related; type="application/dicom"',
  ],
  bulk: [
    'multipart/related; type="application/octet-stream"; transfer-syntax=*',
    'multipart/related; type="application/octet-stream"',
    'application/octet-stream',
  ],
  image: ['image/jpeg', 'image/png', 'multipart/related; type="image/jpeg"'],
  wado: ['image/jpeg', 'application/dicom', '*/*'],
};

function dicomwebAccepts(path: string): string[] {
  if (path.endsWith('/thumbnail')) return DICOMWEB_ACCEPTS.image;
  if (/\/(frames|bulkdata)\/\{[^}]+\}$/.test(path)) return DICOMWEB_ACCEPTS.bulk;
  if (path.endsWith('/wado')) return DICOMWEB_ACCEPTS.wado;
  if (/\/(studies|series|instances)\/\{[^}]+\}$/.test(path)) return DICOMWEB_ACCEPTS.dicom;
  return DICOMWEB_ACCEPTS.json;
}

/** What a well-behaved client sends to this route. */
function normalHeaders(op: Operation): fc.Arbitrary<HeaderPlan> {
  if (op.path.startsWith('/dicomweb'))
    return fc
      .record({
        accept: sometimes(
          70,
          fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...dicomwebAccepts(op.path)) },
            { weight: 1, arbitrary: fc.constantFrom(...Object.values(DICOMWEB_ACCEPTS).flat()) },
          ),
        ),
        'accept-encoding': sometimes(30, fc.constant('gzip, deflate, br')),
      })
      .map(withoutUndefined);
  if (op.path.startsWith('/api/studies/download'))
    return fc
      .record({ range: sometimes(50, fc.constantFrom('bytes=0-99', 'bytes=-10', 'bytes=100-')) })
      .map(withoutUndefined);
  if (op.path.startsWith('/api/uploads'))
    return fc
      .record({
        'tus-resumable': fc.constant('1.0.0'),
        'upload-length': sometimes(
          op.method === 'POST' ? 100 : 0,
          fc.constantFrom('2048', '2048', '10', '0'),
        ),
        'upload-offset': sometimes(op.method === 'PATCH' ? 100 : 0, fc.constantFrom('0', '0', '0', '10')),
        uploadMetadata: sometimes(op.method === 'POST' ? 100 : 0, refArb(['self.uploadName'])),
      })
      .map(withoutUndefined);
  return fc.constant({});
}

function hostileHeaders(op: Operation): fc.Arbitrary<HeaderPlan> {
  const pick = (values: string[]) =>
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: headerText });
  const tus = op.path.startsWith('/api/uploads') ? 1 : 0;
  const dicomweb = op.path.startsWith('/dicomweb');
  const download = op.path.startsWith('/api/studies/download');
  return fc
    .record({
      accept: sometimes(dicomweb ? 70 : 40, pick(ACCEPTS)),
      'accept-encoding': sometimes(
        25,
        pick(['gzip', 'br', 'gzip;q=0', '*', '*;q=0', 'gzip;q=abc', 'identity', '']),
      ),
      range: sometimes(
        download ? 70 : 15,
        pick([
          'bytes=0-10',
          'bytes=-5',
          'bytes=10-5',
          'bytes=0-',
          'bytes=abc',
          'bytes=99999999999999999999-',
          'items=0-1',
          'bytes=0-0,1-1,2-2',
          'bytes=' + '0-1,'.repeat(500),
          'bytes=-0',
          'bytes=',
        ]),
      ),
      'if-range': sometimes(download ? 30 : 10, pick(['"x"', 'W/"x"', 'Wed, 21 Oct 2015 07:28:00 GMT', ''])),
      'if-none-match': sometimes(20, pick(['*', '"x"', 'W/"x"', '"a", "b"', ''])),
      origin: sometimes(
        15,
        pick(['https://evil.example', 'null', 'http://localhost:3000', 'http://localhost:80']),
      ),
      'sec-fetch-site': sometimes(15, pick(['cross-site', 'same-site', 'same-origin', 'none'])),
      'user-agent': sometimes(
        15,
        pick(['', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120', 'x'.repeat(8_000)]),
      ),
      'x-forwarded-for': sometimes(10, pick(['1.2.3.4', 'not-an-ip', '::1, 10.0.0.1'])),
      'content-encoding': sometimes(
        10,
        pick(['gzip', 'br', 'deflate', 'identity', 'gzip, gzip', 'x-unknown']),
      ),
      cookie: sometimes(
        20,
        pick([
          `${AUTH_COOKIE}=`,
          `${AUTH_COOKIE}=garbage`,
          `${AUTH_COOKIE}=%ff`,
          `${REFRESH_COOKIE}=garbage`,
          'mfaPending=garbage',
          'a=b; a=c',
          '=',
          ';;',
          `${AUTH_COOKIE}="unterminated`,
        ]),
      ),
      // tus 1.0 (uploads only).
      'tus-resumable': sometimes(85 * tus, pick(['1.0.0', '1.0.0', '1.0.0', '0.2.2', '', '2.0.0'])),
      'upload-length': sometimes(
        60 * tus,
        pick([
          '0',
          '1',
          '100',
          '2048',
          '-1',
          '1e30',
          'abc',
          '99999999999999999999',
          '5497558138880',
          '10737418241',
        ]),
      ),
      'upload-offset': sometimes(
        (op.method === 'PATCH' ? 80 : 10) * tus,
        pick(['0', '0', '1', '-1', 'abc', '999999999999']),
      ),
      'upload-defer-length': sometimes(5 * tus, pick(['1', '0', 'x'])),
      'x-http-method-override': sometimes(
        8 * tus,
        pick(['DELETE', 'PATCH', 'HEAD', 'GET', 'OPTIONS', 'TRACE']),
      ),
      uploadMetadata: sometimes(
        70 * tus,
        fc.oneof(
          { weight: 3, arbitrary: refArb(['self.uploadName', 'other.uploadName', 'self.userId']) },
          {
            weight: 1,
            arbitrary: pick([
              'objectName',
              'objectName !!!',
              ',,,',
              'filename eA==',
              `objectName ${'A'.repeat(8_000)}`,
            ]),
          },
        ),
      ),
    })
    .map(withoutUndefined);
}

// ---------------------------------------------------------------------------------------------
// Plans

interface Plan {
  op: number;
  method: string;
  as: Principal;
  path: Piece[];
  query: QueryPart[] | Text;
  body: BodyPlan;
  headers: HeaderPlan;
  ip: string;
}

const pieceSize = (p: Piece | undefined) =>
  p === undefined ? 0 : p instanceof Ref || 'ref' in p ? 120 : p.text.length * (p.raw ? 1 : 3);

function approximateHeadBytes(plan: Plan, op: Operation): number {
  const query = Array.isArray(plan.query)
    ? plan.query.reduce((n, q) => n + pieceSize(q.key) + pieceSize(q.value) + 2, 0)
    : plan.query.text.length;
  const headers = Object.values(plan.headers).reduce<number>(
    (n, v) => n + (typeof v === 'string' ? v.length : 200) + 40,
    0,
  );
  return op.path.length + plan.path.reduce((n, p) => n + pieceSize(p), 0) + query + headers + 600;
}

type Part = 'path' | 'query' | 'body' | 'headers';

/**
 * One request: a well-formed one for its caller, with one part (path, query, body or headers)
 * made hostile, and now and then more than one.
 */
function planArb(op: Operation, index: number): fc.Arbitrary<Plan> {
  const parts: Part[] = ['query', 'body', 'headers'];
  if (op.pathParams.length) parts.push('path', 'path');
  if (op.body) parts.push('body', 'body');
  const n = op.pathParams.length;
  return fc
    .record({
      method: fc.oneof(
        {
          weight: 30,
          arbitrary:
            op.method === 'GET' ? fc.constantFrom('GET', 'GET', 'GET', 'HEAD') : fc.constant(op.method),
        },
        // A method the route does not take.
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            'GET',
            'POST',
            'PUT',
            'PATCH',
            'DELETE',
            'OPTIONS',
            'TRACE',
            'PROPFIND',
            'SEARCH',
          ),
        },
      ),
      as: fc.oneof(...principalsFor(op)),
      focus: fc.constantFrom(...parts),
      more: fc.oneof(
        { weight: 4, arbitrary: fc.constant<Part[]>([]) },
        { weight: 1, arbitrary: fc.subarray(parts) },
      ),
      path: fc.tuple(
        ...op.pathParams.map((name) => fc.tuple(validPiece(name, op.path), hostilePiece(name, op.path))),
      ),
      /** Which path parameter is surely hostile when the path is; the others each are in one case of four. */
      pathFocus: fc.nat({ max: Math.max(0, n - 1) }),
      pathMore: fc.array(fc.nat({ max: 3 }), { minLength: n, maxLength: n }),
      query: fc.tuple(validQuery(op), queryArb(op)),
      body: fc.tuple(validBody(op), hostileBody(op)),
      headers: fc.tuple(normalHeaders(op), hostileHeaders(op)),
      ip: fc.oneof({ weight: 9, arbitrary: fc.ipV4() }, { weight: 1, arbitrary: fc.ipV6() }),
    })
    .map((r): Plan => {
      const hostile = new Set([r.focus, ...r.more]);
      const pick = <T>(part: Part, [valid, bad]: [T, T]) => (hostile.has(part) ? bad : valid);
      return {
        op: index,
        method: r.method,
        as: r.as,
        path: r.path.map(([valid, bad], i) =>
          hostile.has('path') && (i === r.pathFocus || r.pathMore[i] === 0) ? bad : valid,
        ),
        query: pick('query', r.query),
        body: pick('body', r.body),
        headers: pick('headers', r.headers),
        ip: r.ip,
      };
    })
    .filter((plan) => approximateHeadBytes(plan, op) < MAX_HEADER_BYTES);
}

// ---------------------------------------------------------------------------------------------
// Sending

/** Percent-encodes every character; a lone surrogate becomes its (invalid) 3-byte UTF-8 form. */
function percentEncode(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += encodeURIComponent(s.slice(i, i + 2));
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
      continue;
    }
    out += encodeURIComponent(s[i]!);
  }
  return out;
}

interface Offender {
  method: string;
  url: string;
  as: Principal;
  status: number | string;
  body: string;
}

describe('API fuzzing from the OpenAPI document', () => {
  let ctx: TestContext;
  let viewerApp: FastifyInstance;
  let patient: Identity;
  let other: Identity;
  let admin: Identity;
  let sacrificial: Identity;
  /** The other user of destructive calls: never named in a sign-in attempt, so always able to sign in again. */
  let bystander: Identity;
  /** Pending professional applications: approvals and rejections may each find one still open. */
  const pros: Array<{ userId: string; email: string }> = [];
  let grant: string;
  let grantCookie: string;
  let uploadToken: string;
  let ipCounter = 0;

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  async function login(email: string, password: string) {
    ipCounter++;
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      remoteAddress: `10.250.${ipCounter >> 8}.${ipCounter & 255}`,
      payload: { email, password, captcha: await ctx.captcha() },
    });
    if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
    const data = res.json().data as { authToken: string; refreshToken: string };
    return { token: data.authToken, refreshToken: data.refreshToken };
  }

  async function currentSessionId(token: string): Promise<string> {
    const res = await ctx.app.inject({ url: '/api/auth/sessions', headers: bearer(token) });
    const current = (res.json().data as Array<{ id: string; current: boolean }> | undefined)?.find(
      (r) => r.current,
    );
    if (!current) throw new Error(`sessions: ${res.statusCode} ${res.body}`);
    return current.id;
  }

  /** Stores a two-series study for the user: two CT instances and a wider MR one. */
  async function studyFor(userId: string, n: number) {
    const studyUid = `2.25.${1000 + n}`;
    const seriesUid = `${studyUid}.1`;
    const sopUid = `${seriesUid}.1`;
    const files = [
      makeDicom({ studyUid, seriesUid, sopUid, rows: 16, columns: 16, instanceNumber: 1 }),
      makeDicom({ studyUid, seriesUid, sopUid: `${seriesUid}.2`, instanceNumber: 2 }),
      makeDicom({
        studyUid,
        seriesUid: `${studyUid}.2`,
        sopUid: `${studyUid}.2.1`,
        rows: 48,
        columns: 64,
        modality: 'MR',
      }),
    ];
    const [studyId] = await ingestFiles(ctx, userId, files);
    return { studyId: studyId!, studyUid, seriesUid, sopUid };
  }

  async function identity(
    email: string,
    tokens: { token: string; refreshToken: string },
    userId: string,
    n: number,
  ) {
    const study = await studyFor(userId, n);
    const [note] = await ctx.services.database.db
      .select({ id: notifications.id })
      .from(notifications)
      .where(eq(notifications.userId, userId))
      .limit(1);
    return {
      userId,
      email,
      ...tokens,
      sessionId: await currentSessionId(tokens.token),
      ...study,
      notificationId: note?.id ?? randomUUID(),
    } satisfies Identity;
  }

  async function registered(email: string, n: number): Promise<Identity> {
    const res = await registerUser(ctx, email);
    if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
    const data = res.json().data as { id: string; authToken: string; refreshToken: string };
    return identity(email, { token: data.authToken, refreshToken: data.refreshToken }, data.id, n);
  }

  let sacrificialStudies = 0;
  /**
   * After a destructive call succeeded: a new session for the dedicated user and for the bystander
   * (whose refresh token such calls may carry), and a new study for the dedicated user, as needed.
   */
  async function repairAfterDestructiveCall() {
    for (const who of [sacrificial, bystander]) {
      const me = await ctx.app.inject({ url: '/api/auth/me', headers: bearer(who.token) });
      if (me.statusCode === 200) continue;
      // What an admin's enable does, for an account a fuzzed disable switched off, and what a
      // password reset does, for a password a fuzzed change replaced.
      await ctx.services.database.db
        .update(users)
        .set({ accountStatus: 'active', passwordHash: await hashPassword(strongPassword) })
        .where(eq(users.id, who.userId));
      await ctx.services.changes.settled();
      Object.assign(who, await login(who.email, strongPassword));
      who.sessionId = await currentSessionId(who.token);
    }
    const study = await ctx.app.inject({
      url: `/api/studies/study/${sacrificial.studyId}`,
      headers: bearer(sacrificial.token),
    });
    if (study.statusCode === 404)
      Object.assign(sacrificial, await studyFor(sacrificial.userId, 100 + ++sacrificialStudies));
  }

  beforeAll(async () => {
    ctx = await createTestContext();
    viewerApp = await buildViewerApp(ctx.services, { logRequests: false });
    patient = await registered('fuzz-patient@example.com', 1);
    other = await registered('fuzz-other@example.com', 2);
    sacrificial = await registered('fuzz-sacrificial@example.com', 3);
    bystander = await registered('fuzz-bystander@example.com', 5);

    const adminEmail = ctx.services.config.adminEmail;
    const adminPassword = 'Adm1n!Passw0rd';
    const adminRow = await ctx.services.users.insertIfEmailFree({
      email: adminEmail,
      emailNormalized: adminEmail,
      passwordHash: await hashPassword(adminPassword),
      name: 'Administrator',
      role: 'admin',
      accountStatus: 'active',
      emailVerifiedAt: new Date(),
    });
    admin = await identity(adminEmail, await login(adminEmail, adminPassword), adminRow!.id, 4);

    for (const n of [1, 2, 3]) {
      const email = `fuzz-pro-${n}@example.com`;
      const applied = await registerUser(ctx, email, {
        extra: {
          role: 'professional',
          license: { number: `L-${n}`, state: 'CA', expiryDate: '2030-01-01' },
          specialty: 'Radiology',
          hospital: 'General Hospital',
        },
      });
      if (applied.statusCode !== 201) throw new Error(`application: ${applied.statusCode} ${applied.body}`);
      pros.push({ userId: applied.json().data.id as string, email });
    }

    const viewer = await ctx.app.inject({
      url: `/api/dicom/viewer/${patient.studyId}`,
      headers: bearer(patient.token),
    });
    if (viewer.statusCode !== 200) throw new Error(`viewer link: ${viewer.statusCode} ${viewer.body}`);
    grant = new URL(viewer.json().url as string).hash.replace('#grant=', '');
    const bind = await viewerApp.inject({ method: 'POST', url: '/dicomweb/session', headers: bearer(grant) });
    if (bind.statusCode !== 204 || !bind.cookies[0])
      throw new Error(`viewer session: ${bind.statusCode} ${bind.body}`);
    grantCookie = `${bind.cookies[0].name}=${bind.cookies[0].value}`;
    const storage = await ctx.app.inject({ url: '/api/storage/token', headers: bearer(patient.token) });
    if (storage.statusCode !== 200) throw new Error(`storage token: ${storage.statusCode} ${storage.body}`);
    uploadToken = storage.json().accessToken as string;

    // A finished upload the fuzzer's process requests can find (until one of them, or a tus DELETE, uses it up).
    const objectName = `${patient.userId}/${UPLOAD_IDS[0]}/study.zip`;
    const zip = buildZip([
      {
        name: 'a.dcm',
        data: makeDicom({ studyUid: '2.25.1999', seriesUid: '2.25.1999.1', sopUid: '2.25.1999.1.1' }),
      },
    ]);
    const tus = { ...bearer(uploadToken), 'tus-resumable': '1.0.0' };
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/api/uploads',
      headers: {
        ...tus,
        'upload-length': String(zip.length),
        'upload-metadata': `objectName ${Buffer.from(objectName).toString('base64')}`,
      },
    });
    const written = await ctx.app.inject({
      method: 'PATCH',
      url: `/api/uploads/${objectName}`,
      headers: { ...tus, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
      payload: zip,
    });
    if (created.statusCode !== 201 || written.statusCode !== 204)
      throw new Error(`upload failed: ${created.statusCode} ${written.statusCode} ${written.body}`);
    // And uploads begun but not written, for resumes, probes and ends to find.
    for (const id of UPLOAD_IDS.slice(1)) {
      const begun = await ctx.app.inject({
        method: 'POST',
        url: '/api/uploads',
        headers: {
          ...tus,
          'upload-length': '2048',
          'upload-metadata': `objectName ${Buffer.from(`${patient.userId}/${id}/study.zip`).toString('base64')}`,
        },
      });
      if (begun.statusCode !== 201) throw new Error(`upload failed: ${begun.statusCode} ${begun.body}`);
    }
  });

  afterAll(async () => {
    await viewerApp?.close();
    await ctx?.close();
  });

  it('answers every generated request without a server error', async () => {
    // The whole document (others get it without the admin and internal operations).
    const docRes = await ctx.app.inject({
      url: '/api/docs',
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(docRes.statusCode).toBe(200);
    await viewerApp.ready();
    const operations = buildOperations(
      docRes.json() as OpenApiDocument,
      ctx.app.printRoutes({ commonPrefix: false }),
      viewerApp.printRoutes({ commonPrefix: false }),
    );
    // The session- and data-ending calls get their own user; if a route is renamed, say so here.
    expect(operations.filter((o) => o.destructive)).toHaveLength(DESTRUCTIVE.length);

    const perOperation = operations.map((op, i) =>
      fc.sample(planArb(op, i), { seed: SEED + i, numRuns: op.body ? RUNS_WITH_BODY : RUNS }),
    );
    // Interleaved, so that calls meet each other's effects (an upload created, then resumed or ended).
    const plans = perOperation.flat();
    const [order] = fc.sample(fc.array(fc.nat(), { minLength: plans.length, maxLength: plans.length }), {
      seed: SEED,
      numRuns: 1,
    });
    const rank = new Map(plans.map((p, i) => [p, order![i]!]));
    plans.sort((a, b) => rank.get(a)! - rank.get(b)!);

    const whoIs = (as: Principal, op: Operation) => {
      if (as === 'admin') return { self: admin, other: patient };
      // The other user of a destructive call may lose a session too (a refresh with their token).
      if (op.destructive) return { self: sacrificial, other: bystander };
      return { self: patient, other };
    };
    const resolveRef = (ref: Ref, op: Operation, as: Principal): string => {
      const [whose, field] = ref.name.split('.') as ['self' | 'other' | 'pro', string];
      // Which application a request names follows from its generated uuid, so it is the same every run.
      const id =
        whose === 'pro'
          ? pros[parseInt(ref.arg.slice(0, 2) || '0', 16) % pros.length]!
          : whoIs(as, op)[whose];
      if (field === 'uploadName') return `${id.userId}/${ref.arg}/study.zip`;
      return (id as unknown as Record<string, string>)[field]!;
    };
    const pieceText = (p: Piece, op: Operation, as: Principal, slashes = false): string => {
      if (p instanceof Ref) {
        const value = resolveRef(p, op, as);
        return slashes ? value.split('/').map(percentEncode).join('/') : percentEncode(value);
      }
      if ('ref' in p) return percentEncode(resolveRef(p.ref, op, as)) + p.tail;
      return p.raw ? p.text : percentEncode(p.text);
    };
    const resolveDeep = (v: unknown, op: Operation, as: Principal): unknown => {
      if (v instanceof Ref) return resolveRef(v, op, as);
      if (Array.isArray(v)) return v.map((x) => resolveDeep(x, op, as));
      if (v && typeof v === 'object') {
        const out = {};
        for (const k of Object.keys(v))
          Object.defineProperty(out, k, {
            value: resolveDeep((v as Record<string, unknown>)[k], op, as),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        return out;
      }
      return v;
    };

    const authFor = (as: Principal, op: Operation, variant: number): Record<string, string> => {
      const self = whoIs(as, op).self;
      switch (as) {
        case 'patient':
        case 'admin':
        case 'sacrificial':
          return bearer(self.token);
        case 'patientCookie':
          return { cookie: `${AUTH_COOKIE}=${self.token}` };
        case 'sacrificialCookie':
          return { cookie: `${AUTH_COOKIE}=${self.token}; ${REFRESH_COOKIE}=${self.refreshToken}` };
        case 'uploader':
          return bearer(uploadToken);
        case 'uploaderOtherCookie':
          return { ...bearer(uploadToken), cookie: `${AUTH_COOKIE}=${other.token}` };
        case 'viewer':
          return { ...bearer(grant), cookie: grantCookie };
        case 'viewerUnbound':
          return bearer(grant);
        case 'anonymous':
          return {};
        case 'bogus': {
          const choices = [
            'Bearer',
            'Bearer ',
            'Bearer null',
            'Basic Zm9vOmJhcg==',
            `Bearer ${self.token}x`,
            `Bearer ${self.token.slice(0, -1)}`,
            `bearer ${self.token}`,
            `Bearer ${'A'.repeat(10_000)}`,
            `Bearer ${op.origin === 'viewer' ? uploadToken : grant}`,
            'Bearer \u00e9\u00ff',
            `Bearer ${self.token} ${self.token}`,
          ];
          return { authorization: choices[variant % choices.length]! };
        }
      }
    };

    /** The request a plan stands for, with real values filled in as they are now. */
    const requestFor = (plan: Plan, n: number) => {
      const op = operations[plan.op]!;
      const { as } = plan;
      let i = 0;
      const pathText = op.path.replace(/\{([^}]*)\}/g, (_m, name: string) =>
        pieceText(plan.path[i++]!, op, as, name === '*'),
      );
      const queryText = Array.isArray(plan.query)
        ? plan.query
            .map(
              (q) =>
                pieceText(q.key, op, as) + (q.value === undefined ? '' : `=${pieceText(q.value, op, as)}`),
            )
            .join('&')
        : plan.query.text;
      const url = pathText + (queryText ? `?${queryText}` : '');

      const { uploadMetadata, ...plain } = plan.headers;
      const headers: Record<string, string> = { ...(plain as Record<string, string>) };
      if (uploadMetadata !== undefined)
        headers['upload-metadata'] =
          uploadMetadata instanceof Ref
            ? `objectName ${Buffer.from(resolveRef(uploadMetadata, op, as)).toString('base64')}`
            : uploadMetadata;
      const auth = authFor(as, op, n);
      if (auth.authorization) headers.authorization = auth.authorization;
      if (auth.cookie) headers.cookie = headers.cookie ? `${auth.cookie}; ${headers.cookie}` : auth.cookie;

      let payload: string | Buffer | undefined;
      const { body } = plan;
      if (body.kind === 'json') {
        const text = JSON.stringify(resolveDeep(body.value, op, as)) ?? 'null';
        payload = body.splice ? text.replace(`"${RAW_FIELD}"`, body.splice) : text;
      } else if (body.kind === 'raw') {
        payload = typeof body.raw === 'string' ? body.raw : Buffer.from(body.raw!);
      }
      if (payload !== undefined) {
        const type = body.contentType === undefined ? 'application/json' : body.contentType;
        if (type !== null) headers['content-type'] = type;
      }
      return { url, headers, payload };
    };

    const histogram = new Map<number | string, number>();
    const offenders: Offender[] = [];
    const covered = new Set<number>();
    const answered2xx = new Set<number>();
    let sent = 0;

    /** Sends a plan and records the answer; a 5xx, an exception or no answer at all is an offence. */
    const send = async (plan: Plan, n: number): Promise<number | string> => {
      const op = operations[plan.op]!;
      const { url, headers, payload } = requestFor(plan, n);
      const app = op.origin === 'viewer' ? viewerApp : ctx.app;
      let status: number | string;
      let answer = '';
      try {
        const res = await Promise.race([
          app.inject({ method: plan.method as 'GET', url, headers, payload, remoteAddress: plan.ip }),
          new Promise<'timeout'>((resolve) =>
            setTimeout(() => resolve('timeout'), REQUEST_TIMEOUT_MS).unref(),
          ),
        ]);
        if (res === 'timeout') status = 'no answer';
        else {
          status = res.statusCode;
          answer = res.body;
        }
      } catch (err) {
        status = 'threw';
        answer = String((err as Error)?.stack ?? err);
      }
      sent++;
      covered.add(plan.op);
      histogram.set(status, (histogram.get(status) ?? 0) + 1);
      if (typeof status === 'number' && status >= 200 && status < 300) answered2xx.add(plan.op);
      if (typeof status !== 'number' || status >= 500)
        offenders.push({ method: plan.method, url, as: plan.as, status, body: answer });
      return status;
    };

    const succeeded: Array<[Plan, number]> = [];
    for (const [n, plan] of plans.entries()) {
      const status = await send(plan, n);
      const op = operations[plan.op]!;
      if (typeof status === 'number' && status < 300 && !['GET', 'HEAD', 'OPTIONS'].includes(plan.method))
        succeeded.push([plan, n]);
      if (op.destructive && typeof status === 'number' && status < 400) await repairAfterDestructiveCall();
    }

    // Races: state-changing requests that worked (the first few of each operation), sent again
    // several times at once (a double click, a retrying client). Duplicates may be refused, never fail.
    const replayed = new Map<number, number>();
    for (const [plan, n] of succeeded) {
      const times = replayed.get(plan.op) ?? 0;
      if (times >= REPLAYS_PER_OPERATION) continue;
      replayed.set(plan.op, times + 1);
      await Promise.all(Array.from({ length: BURST }, () => send(plan, n)));
      if (operations[plan.op]!.destructive) await repairAfterDestructiveCall();
    }

    const byOrigin = (origin: Origin, documented: boolean) =>
      operations.filter((o) => o.origin === origin && o.documented === documented).length;
    console.log(
      [
        `operations covered: ${covered.size} of ${operations.length} ` +
          `(${byOrigin('app', true)} documented, ${byOrigin('app', false)} undocumented app routes, ` +
          `${byOrigin('viewer', false)} viewer-origin routes); ${answered2xx.size} answered 2xx at least once`,
        `requests sent: ${sent}`,
        `never answered 2xx (each needs a secret the fuzzer cannot have, or is unreached): ${operations
          .filter((_o, i) => !answered2xx.has(i))
          .map((o) => `${o.origin === 'viewer' ? 'viewer ' : ''}${o.method} ${o.path}`)
          .join(', ')}`,
        `status histogram: ${[...histogram.entries()]
          .sort(([a], [b]) => String(a).localeCompare(String(b)))
          .map(([s, c]) => `${s}: ${c}`)
          .join(', ')}`,
      ].join('\n'),
    );

    const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
    const report = offenders
      .slice(0, 20)
      .map((o) => `${o.method} ${clip(o.url, 300)} as ${o.as} -> ${o.status}\n  ${clip(o.body, 600)}`)
      .join('\n');
    expect(sent).toBeGreaterThanOrEqual(2_000);
    expect(offenders.length, `${offenders.length} request(s) got a server error:\n${report}`).toBe(0);

    // The fuzzing user's session must have survived: otherwise most requests only tested the 401 path.
    const me = await ctx.app.inject({ url: '/api/auth/me', headers: bearer(patient.token) });
    expect(me.statusCode, 'the fuzzing patient lost their session').toBe(200);
  }, 180_000);
});
