import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A load balancer in front of several API processes, as an operator would put one: every request
// goes to the next target in turn, so consecutive requests of one client land on different nodes.
// Bodies are streamed both ways; nothing is buffered or retried.

export interface StalledRequest {
  /** The target the request went to. */
  target: string;
  /** Resolves once `bytes` of its body have been handed to the target. */
  forwarded: Promise<void>;
}

export interface RoundRobinProxy {
  url: string;
  /** The nodes requests go to, in turn; replace it to take a node out or put one back. */
  targets: string[];
  /** Which target each request went to, in order (`METHOD path -> target`). */
  log: string[];
  /**
   * Makes the next request matching `method` forward only the first `bytes` of its body and then
   * hold the rest back, as a client whose connection stalls mid-request (the test then kills the
   * node it reached).
   */
  stallNext(method: string, bytes: number): StalledRequest;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(targets: string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const log: string[] = [];
  let stall: { method: string; bytes: number; request: StalledRequest; forwarded: () => void } | undefined;
  const proxy: RoundRobinProxy = {
    url: '',
    targets,
    log,
    stallNext(method, bytes) {
      let forwarded!: () => void;
      const request: StalledRequest = { target: '', forwarded: new Promise<void>((r) => (forwarded = r)) };
      stall = { method, bytes, request, forwarded };
      return request;
    },
    close: async () => undefined,
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const list = proxy.targets;
    if (list.length === 0) {
      res.writeHead(503).end();
      return;
    }
    const target = list[next++ % list.length]!;
    log.push(`${req.method} ${req.url} -> ${target}`);
    const url = new URL(req.url ?? '/', target);
    const upstream = request(
      url,
      { method: req.method, headers: { ...req.headers, host: url.host }, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    // A node that dies mid-request: the client sees its connection cut, as behind a real proxy.
    // A client still sending its body has its connection cut (it must not be reused).
    upstream.on('error', () => {
      if (!res.headersSent && req.complete) res.writeHead(502).end();
      else req.socket.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    const held = stall && stall.method === req.method ? stall : undefined;
    if (!held) {
      req.pipe(upstream);
      return;
    }
    stall = undefined;
    held.request.target = target;
    let sent = 0;
    req.on('data', (chunk: Buffer) => {
      if (sent >= held.bytes) return;
      const part = chunk.subarray(0, held.bytes - sent);
      sent += part.length;
      upstream.write(part);
      if (sent >= held.bytes) {
        req.pause();
        held.forwarded();
      }
    });
  };

  // Idle client connections stay open longer than any client keeps them (as nginx's 75 s does):
  // with Node's default 5 s, a client reusing a connection just as the proxy closes it gets a reset
  // no real load balancer would cause.
  const server: Server = createServer(handle);
  server.keepAliveTimeout = 75_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
