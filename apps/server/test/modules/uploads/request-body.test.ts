import { createHash, randomBytes } from 'node:crypto';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { requestBodyStream } from '../../../src/modules/uploads/request-body';

// requestBodyStream feeds tus the PATCH bodies of every upload: it must hand over every byte in
// order, hold the socket while its reader is slow, and fail (not end) when the client goes away.

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A server whose handler gets the body stream; resolves with its URL. */
async function serve(handle: (req: IncomingMessage, res: http.ServerResponse) => void): Promise<string> {
  server = http.createServer(handle);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function readAll(stream: ReadableStream<Uint8Array>, delayMs = 0) {
  const hash = createHash('sha256');
  let bytes = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    hash.update(value);
    bytes += value.byteLength;
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
  }
  return { bytes, sha256: hash.digest('hex') };
}

describe('requestBodyStream', () => {
  it('delivers the body byte for byte, also to a slow reader that makes it pause the socket', async () => {
    const body = randomBytes(6 * 1024 * 1024 + 123);
    let paused = 0;
    const url = await serve((req, res) => {
      const pause = req.pause.bind(req);
      req.pause = () => {
        paused++;
        return pause();
      };
      readAll(requestBodyStream(req), 2).then(
        (result) => res.end(JSON.stringify(result)),
        (err: Error) => res.writeHead(500).end(err.message),
      );
    });
    const res = await fetch(url, { method: 'PATCH', body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      bytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    // Once at the start, then whenever more than the queue's worth waited for the reader.
    expect(paused).toBeGreaterThan(1);
  });

  it('errors, rather than ends, when the client disconnects mid-body', async () => {
    const outcome = new Promise<string>((resolve) => {
      void serve((req) => {
        readAll(requestBodyStream(req)).then(
          () => resolve('ended'),
          () => resolve('errored'),
        );
      }).then((url) => {
        const { port } = new URL(url);
        const client = http.request({ port, method: 'PATCH', headers: { 'content-length': 1024 * 1024 } });
        client.on('error', () => undefined);
        client.write(randomBytes(64 * 1024), () => setTimeout(() => client.destroy(), 50));
      });
    });
    expect(await outcome).toBe('errored');
  });

  it('destroys the request when its reader cancels', async () => {
    const destroyed = new Promise<boolean>((resolve) => {
      void serve((req) => {
        const reader = requestBodyStream(req).getReader();
        void reader.read().then(() => reader.cancel(new Error('stop')));
        req.on('close', () => resolve(req.destroyed));
        // A request left open would otherwise only end with the client's upload.
        setTimeout(() => resolve(false), 5000);
      }).then((url) => {
        fetch(url, { method: 'PATCH', body: randomBytes(4 * 1024 * 1024) }).catch(() => undefined);
      });
    });
    expect(await destroyed).toBe(true);
  });
});
