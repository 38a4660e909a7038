import { Upload, type HttpStack } from 'tus-js-client';

// Kept apart from the other study helpers (which load the whole app) so that a process that only
// uploads, such as bench/ingest's client, can import it cheaply.

/** Uploads bytes through the real tus protocol with tus-js-client; resolves with the upload URL. */
export function tusUpload(
  baseUrl: string,
  accessToken: string,
  objectName: string,
  data: Buffer,
  opts: {
    chunkSize?: number;
    uploadUrl?: string;
    onChunk?: (upload: Upload, offset: number) => void;
    httpStack?: HttpStack;
  } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const upload: Upload = new Upload(data, {
      endpoint: `${baseUrl}/api/uploads`,
      ...(opts.uploadUrl ? { uploadUrl: opts.uploadUrl } : {}),
      ...(opts.httpStack ? { httpStack: opts.httpStack } : {}),
      chunkSize: opts.chunkSize ?? 16 * 1024 * 1024,
      retryDelays: [],
      metadata: { objectName, filetype: 'application/zip' },
      headers: { Authorization: `Bearer ${accessToken}` },
      onChunkComplete: (_size, sent) => opts.onChunk?.(upload, sent),
      onError: reject,
      onSuccess: () => resolve(upload.url!),
    });
    upload.start();
  });
}
