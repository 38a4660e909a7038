import type { ShlPayload } from '../utils/shlink';

/**
 * The public side of a study link, spoken without the app's session: every request omits cookies
 * (a signed-in owner testing their own link is a recipient like any other), and the link's payload
 * never goes to the server — only the manifest URL it names, and what the bundle's Endpoint allows.
 */

export type ShlFailure =
  /** A wrong or missing passcode; `remainingAttempts` before the link is disabled. */
  | { kind: 'passcode'; remainingAttempts: number | null }
  /** Expired, revoked, paused, used up or unknown: 404 (or 401 with the link's credential). */
  | { kind: 'ended' }
  | { kind: 'rate-limited' }
  | { kind: 'failed'; status: number };

export class ShlError extends Error {
  override readonly name = 'ShlError';
  constructor(readonly failure: ShlFailure) {
    super(`study link request failed: ${failure.kind}`);
  }
}

const FHIR_JSON = 'application/fhir+json';

async function send(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ShlError({ kind: 'failed', status: 0 });
  }
}

async function failureOf(res: Response): Promise<ShlError> {
  if (res.status === 404) return new ShlError({ kind: 'ended' });
  if (res.status === 429) return new ShlError({ kind: 'rate-limited' });
  if (res.status === 401) {
    const body = (await res.json().catch(() => null)) as { remainingAttempts?: unknown } | null;
    const left = body?.remainingAttempts;
    return new ShlError({ kind: 'passcode', remainingAttempts: typeof left === 'number' ? left : null });
  }
  return new ShlError({ kind: 'failed', status: res.status });
}

/**
 * The link's encrypted files (compact JWEs): for a check-in link (flag U) the one file by GET, else
 * the manifest by POST with the recipient's name (and passcode), then each file, embedded or fetched
 * from its `location`.
 */
export async function fetchShlFiles(
  payload: ShlPayload,
  recipient: string,
  passcode?: string,
): Promise<string[]> {
  if (payload.flag.includes('U')) {
    const url = new URL(payload.url);
    url.searchParams.set('recipient', recipient);
    const res = await send(url.toString());
    if (!res.ok) throw await failureOf(res);
    return [await res.text()];
  }
  const res = await send(payload.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify(passcode ? { recipient, passcode } : { recipient }),
  });
  if (!res.ok) throw await failureOf(res);
  const manifest = (await res.json().catch(() => null)) as { files?: unknown } | null;
  const files = Array.isArray(manifest?.files) ? manifest.files : [];
  const jwes: string[] = [];
  for (const file of files as Array<{ contentType?: unknown; embedded?: unknown; location?: unknown }>) {
    if (file?.contentType !== FHIR_JSON) continue;
    if (typeof file.embedded === 'string') {
      jwes.push(file.embedded);
    } else if (typeof file.location === 'string') {
      const got = await send(file.location);
      if (!got.ok) throw await failureOf(got);
      jwes.push(await got.text());
    }
  }
  return jwes;
}

/** Failures of the calls made with the link's credential: 401 and 404 both mean the link has ended. */
async function credentialFailure(res: Response): Promise<ShlError> {
  if (res.status === 401 || res.status === 404) return new ShlError({ kind: 'ended' });
  return failureOf(res);
}

/** The study's thumbnail from the bundle's DICOMweb Endpoint, as a blob. */
export async function fetchThumbnail(
  address: string,
  studyUid: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<Blob> {
  const res = await send(`${address}/studies/${encodeURIComponent(studyUid)}/thumbnail`, {
    headers: { ...headers, Accept: 'image/jpeg, image/png, image/*' },
    signal,
  });
  if (!res.ok) throw await credentialFailure(res);
  return res.blob();
}

/** POST /api/shl/viewer: a viewer address for one study of the link (OHIF on the viewer origin). */
export async function openViewer(studyId: string, headers: Record<string, string>): Promise<string> {
  const res = await send('/api/shl/viewer', {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ studyId }),
  });
  if (!res.ok) throw await credentialFailure(res);
  const body = (await res.json()) as { viewerUrl?: unknown };
  if (typeof body.viewerUrl !== 'string') throw new ShlError({ kind: 'failed', status: res.status });
  return body.viewerUrl;
}

/**
 * POST /api/shl/download: where to fetch the study's ZIP. 404 here is kept apart from the link's end
 * ('not-allowed'): the server answers it too when the owner did not allow downloads.
 */
export async function requestDownload(
  studyId: string,
  headers: Record<string, string>,
): Promise<{ url: string } | 'not-allowed'> {
  const res = await send('/api/shl/download', {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ studyId }),
  });
  if (res.status === 404) return 'not-allowed';
  if (!res.ok) throw await credentialFailure(res);
  const body = (await res.json()) as { url?: unknown };
  if (typeof body.url !== 'string') throw new ShlError({ kind: 'failed', status: res.status });
  return { url: body.url };
}
