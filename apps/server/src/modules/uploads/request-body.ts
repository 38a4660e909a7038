import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream';

/** Bytes of a request body queued ahead of the upload's writer before the socket is paused. */
const QUEUED_BYTES = 1024 * 1024;

/**
 * A request body as a web stream, for @tus/server (which reads `Request.body`), without the copy
 * Node's `Readable.toWeb` makes of every chunk "to detach it from the pool". The HTTP parser hands
 * each body chunk over in a buffer of its own, so nothing else writes into it; the copy only doubled
 * the memory an upload allocates (one fresh 64 KiB buffer per socket read), and fresh memory is what
 * a large upload pays most for here: page faults and the collections that external memory triggers.
 */
export function requestBodyStream(req: IncomingMessage): ReadableStream<Uint8Array> {
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.pause();
        req.on('data', (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        // The end of the body, a socket error or a connection closed early (premature close).
        finished(req, (err) => {
          if (done) return;
          done = true;
          if (err) controller.error(err);
          else controller.close();
        });
      },
      pull() {
        req.resume();
      },
      cancel(reason) {
        done = true;
        req.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: QUEUED_BYTES }),
  );
}
