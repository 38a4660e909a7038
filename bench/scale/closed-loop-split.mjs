// Closed-loop load over several API nodes for bench/scale/horizontal.ts, in a process of its own:
// `connections` keep-alive clients split evenly over `bases`, each asking for `path` as soon as its
// last answer ended, so every node gets the same number of connections and a faster node answers
// more. Reads one JSON job from argv: {bases, path, headers, connections, seconds, engine}; prints
// one JSON line with the totals and each node's share.
//
// engine 'autocannon' (as closed-loop.mjs) parses every answer with http-parser-js; on large answers
// that costs the client more CPU than the server spends. engine 'raw' writes a prepared request on a
// plain socket and only reads the status line and Content-Length of each answer, then counts the
// body's bytes, so the load generator's share of the cores stays small.
import net from 'node:net';
import autocannon from 'autocannon';

const job = JSON.parse(process.argv[2] ?? '{}');
const share = (i) =>
  Math.floor(job.connections / job.bases.length) + (i < job.connections % job.bases.length ? 1 : 0);
const percentile = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : 0;

async function viaAutocannon(base, connections) {
  const r = await autocannon({
    url: `${base}${job.path}`,
    connections,
    duration: job.seconds,
    headers: job.headers,
  });
  return {
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    bytesPerSecond: r.throughput.average,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    p50: r.latency.p50,
    p99: r.latency.p99,
  };
}

async function viaRawSockets(base, connections) {
  const url = new URL(base);
  const request = Buffer.from(
    `GET ${job.path} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n${Object.entries(job.headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
  );
  const latencies = [];
  let requests = 0;
  let non2xx = 0;
  let errors = 0;
  let bytes = 0;
  const start = performance.now();
  const end = start + job.seconds * 1000;
  const one = () =>
    new Promise((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname);
      socket.setNoDelay(true);
      let head = '';
      let remaining = -1; // body bytes still to come; -1 while reading the head
      let sentAt = 0;
      const send = () => {
        if (performance.now() >= end) {
          socket.end();
          resolve();
          return;
        }
        head = '';
        remaining = -1;
        sentAt = performance.now();
        socket.write(request);
      };
      socket.on('connect', send);
      socket.on('error', () => {
        errors++;
        resolve();
      });
      socket.on('data', (chunk) => {
        let at = 0;
        if (remaining < 0) {
          head += chunk.toString('latin1', 0, Math.min(chunk.length, 4096));
          const cut = head.indexOf('\r\n\r\n');
          if (cut < 0) return;
          const status = Number(head.slice(9, 12));
          if (status < 200 || status > 299) non2xx++;
          const length = /\r\ncontent-length: *(\d+)/i.exec(head.slice(0, cut));
          if (!length) {
            errors++;
            socket.destroy();
            resolve();
            return;
          }
          remaining = Number(length[1]);
          at = cut + 4 - (head.length - Math.min(chunk.length, 4096));
        }
        const body = chunk.length - at;
        remaining -= body;
        bytes += chunk.length;
        if (remaining <= 0) {
          requests++;
          latencies.push(performance.now() - sentAt);
          send();
        }
      });
    });
  await Promise.all(Array.from({ length: connections }, one));
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests,
    rps: requests / seconds,
    bytesPerSecond: bytes / seconds,
    non2xx,
    errors,
    timeouts: 0,
    p50: Math.round(percentile(latencies, 0.5)),
    p99: Math.round(percentile(latencies, 0.99)),
  };
}

const cpu0 = process.cpuUsage();
const results = await Promise.all(
  job.bases.map((base, i) =>
    job.engine === 'raw' ? viaRawSockets(base, share(i)) : viaAutocannon(base, share(i)),
  ),
);
const cpu = process.cpuUsage(cpu0);
const sum = (f) => results.reduce((n, r) => n + f(r), 0);
console.log(
  JSON.stringify({
    requests: sum((r) => r.requests),
    rps: sum((r) => r.rps),
    bytesPerSecond: sum((r) => r.bytesPerSecond),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    perNode: results.map((r) => ({ rps: r.rps, p50: r.p50, p99: r.p99 })),
    clientCpuMs: (cpu.user + cpu.system) / 1000,
  }),
);
