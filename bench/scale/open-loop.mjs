// Open-loop load generator for bench/scale/study-list.ts, in a process of its own. Sends GET requests
// on a fixed schedule (`rate` per second for `seconds`) whether or not earlier answers have come
// back, opening more keep-alive connections when needed, and measures each latency from the time
// the request was scheduled to be sent to the last byte of its answer (no coordinated omission: a
// stalled server counts against every request that was due while it stalled).
// Reads one JSON job from argv: {url, headers, rate, seconds}; prints one JSON line of figures.
import http from 'node:http';

const job = JSON.parse(process.argv[2] ?? '{}');
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const url = new URL(job.url);
const total = Math.round(job.rate * job.seconds);
const interval = 1000 / job.rate;
const latencies = [];
const services = [];
let maxSendLag = 0;
let errors = 0;
let bytes = 0;
const statuses = {};
let sockets = 0;

const cpu0 = process.cpuUsage();
const t0 = performance.now() + 50;
let sent = 0;
let done = 0;

function send(scheduled) {
  const start = performance.now();
  maxSendLag = Math.max(maxSendLag, start - scheduled);
  const req = http.request(
    { host: url.hostname, port: url.port, path: url.pathname + url.search, headers: job.headers, agent },
    (res) => {
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      res.on('data', (c) => (bytes += c.length));
      res.on('end', () => {
        const end = performance.now();
        latencies.push(end - scheduled);
        services.push(end - start);
        finish();
      });
    },
  );
  req.on('socket', (s) => {
    if (!s.__counted) {
      s.__counted = true;
      sockets++;
    }
  });
  req.on('error', () => {
    errors++;
    finish();
  });
  req.end();
}

let resolveAll;
const all = new Promise((r) => (resolveAll = r));
function finish() {
  if (++done === total) resolveAll();
}

function tick() {
  const now = performance.now();
  while (sent < total && t0 + sent * interval <= now) send(t0 + sent++ * interval);
  if (sent < total) setTimeout(tick, Math.max(0, t0 + sent * interval - performance.now()));
}
setTimeout(tick, Math.max(0, t0 - performance.now()));
await all;
const cpu = process.cpuUsage(cpu0);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};
agent.destroy();
process.stdout.write(
  `${JSON.stringify({
    requests: total,
    answered: latencies.length,
    errors,
    statuses,
    bytes,
    sockets,
    elapsedMs: performance.now() - t0,
    maxSendLagMs: maxSendLag,
    latency: {
      p50: pct(latencies, 50),
      p90: pct(latencies, 90),
      p99: pct(latencies, 99),
      p999: pct(latencies, 99.9),
      max: Math.max(...latencies),
    },
    service: { p50: pct(services, 50), p99: pct(services, 99) },
    clientCpuMs: (cpu.user + cpu.system) / 1000,
  })}\n`,
);
