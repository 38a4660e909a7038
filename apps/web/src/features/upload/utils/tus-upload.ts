import type { StorageToken } from '@mi/contracts/studies';
import type { DetailedError, PreviousUpload } from 'tus-js-client';
import { getStorageToken } from '../api/get-storage-token';

/** Large chunks keep request overhead small on fast links; tus resumes within a chunk anyway. */
const CHUNK_SIZE = 32 * 1024 * 1024;
const RETRY_DELAYS = [0, 1_000, 3_000, 5_000, 10_000, 20_000];
/** A credential this close to expiry is replaced before the next request. */
const TOKEN_REFRESH_MARGIN_MS = 60_000;

export interface UploadArchiveInput {
  file: Blob;
  /** Identifies the archive's content, so a reload can find and resume the same upload. */
  contentId: string;
  userId: string;
  onProgress: (fraction: number) => void;
  signal: AbortSignal;
  /** Upload-Metadata of a shared upload (the inviter and the invitation token), checked on creation. */
  extraMetadata?: Record<string, string>;
}

/** randomUUID needs a secure context; getRandomValues does not. */
function uuidV4(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Where the archive will be stored: `{userId}/{uuid}/study.zip`. */
function newObjectName(userId: string): string {
  return `${userId}/${uuidV4()}/study.zip`;
}

function latestResumable(
  previous: PreviousUpload[],
  userId: string,
  size: number,
): PreviousUpload | undefined {
  return previous
    .filter((p) => p.uploadUrl && p.size === size && p.metadata.objectName?.startsWith(`${userId}/`))
    .sort((a, b) => Date.parse(b.creationTime) - Date.parse(a.creationTime))[0];
}

function isDetailedError(err: unknown): err is DetailedError {
  return err instanceof Error && 'originalRequest' in err;
}

/** Upload failure texts: the server's message when it gave one, else a generic one. */
export function uploadErrorMessage(err: unknown): string {
  if (isDetailedError(err)) {
    const res = err.originalResponse;
    const creating = err.originalRequest?.getMethod() === 'POST';
    if (res) {
      try {
        const body: unknown = JSON.parse(res.getBody());
        if (body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string') {
          return (body as { error: string }).error;
        }
      } catch {
        // tus servers may answer in plain text; the status text is then the best we have.
      }
      const statusText = (res.getUnderlyingObject() as XMLHttpRequest | undefined)?.statusText;
      if (statusText) return statusText;
    }
    return creating ? 'Failed to start upload' : 'Upload error';
  }
  return 'Upload error';
}

/**
 * Uploads the archive with tus, resuming an earlier upload of the same content by this user when
 * the browser remembers one (after a dropped connection or a page reload). Resolves with the
 * object name, which names the archive for processing.
 */
export async function uploadArchive({
  file,
  contentId,
  userId,
  onProgress,
  signal,
  extraMetadata = {},
}: UploadArchiveInput): Promise<string> {
  const [{ Upload }, firstToken] = await Promise.all([import('tus-js-client'), getStorageToken(signal)]);
  let token: StorageToken = firstToken;
  const freshToken = async (): Promise<StorageToken> => {
    if (Date.parse(token.expiresAt) - Date.now() < TOKEN_REFRESH_MARGIN_MS) token = await getStorageToken();
    return token;
  };

  return new Promise<string>((resolve, reject) => {
    let objectName = newObjectName(userId);
    const upload = new Upload(file, {
      endpoint: token.uploadUrl,
      chunkSize: CHUNK_SIZE,
      retryDelays: RETRY_DELAYS,
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      // A shared upload is never resumed as an own one (or for another inviter), and vice versa.
      fingerprint: () =>
        Promise.resolve(
          `mi-study:${userId}:${contentId}:${token.uploadUrl}${extraMetadata.targetUserId ? `:for:${extraMetadata.targetUserId}` : ''}`,
        ),
      metadata: { objectName, filetype: 'application/zip', ...extraMetadata },
      onBeforeRequest: async (req) => {
        req.setHeader('Authorization', `Bearer ${(await freshToken()).accessToken}`);
      },
      onProgress: (sent, total) => onProgress(total > 0 ? sent / total : 0),
      onSuccess: () => resolve(objectName),
      onError: reject,
    });

    signal.addEventListener(
      'abort',
      () => {
        // Not terminated: the server keeps what arrived so a later attempt can resume.
        void upload.abort(false);
        reject(new DOMException('The upload was stopped.', 'AbortError'));
      },
      { once: true },
    );

    upload
      .findPreviousUploads()
      .then((previous) => {
        if (signal.aborted) return;
        const resumable = latestResumable(previous, userId, file.size);
        if (resumable) {
          objectName = resumable.metadata.objectName!;
          upload.options.metadata = { objectName, filetype: 'application/zip', ...extraMetadata };
          upload.resumeFromPreviousUpload(resumable);
        }
        upload.start();
      })
      .catch(reject);
  });
}
