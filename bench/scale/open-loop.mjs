// Open-loop load generator for bench/scale/study-list.ts, in a process of its own. Sends GET requests
// on a fixed schedule (`rate` per second for `seconds`) whether or not earlier answers have come
// back, opening more keep-alive connections when needed, and measures each latency from the time
// the request was scheduled to be sent to the last byte of its answer (no coordinated omission: a
// stalled server counts against every request that was due while it stalled).
// Reads one JSON job from argv: {url, headers, rate, seconds}; prints one JSON line of figures.
//
// It speaks HTTP/1.1 over plain sockets that read into one reused buffer per connection (`onread`)
// and only count the body's bytes: node:http's client spent about 6 ms of CPU per 4 MiB answer
// (a full core at 200 answers/s), so with it the generator, not the server, set the latency.
import net from 'node:net';

const job = JSON.parse(process.argv[2] ?? '{}');
const url = new URL(job.url);
const total = Math.round(job.rate * job.seconds);
const interval = 1000 / job.rate;
const request = Buffer.from(
  `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n` +
    Object.entries(job.headers ?? {})
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n',
  'latin1',
);
const latencies = [];
const services = [];
let maxSendLag = 0;
let errors = 0;
let bytes = 0;
const statuses = {};
let sockets = 0;
/** Bytes of a read looked at for the end of a response head at a time (heads are far smaller). */
const HEAD_SCAN = 8192;
/** Connections with no request in flight. */
const idle = [];

/**
 * One keep-alive connection and the response it is reading: the head until its blank line, then a
 * body of Content-Length bytes or chunked, counted and never kept.
 */
class Connection {
  constructor() {
    sockets++;
    this.pending = null;
    this.socket = net.connect({
      host: url.hostname,
      port: Number(url.port),
      noDelay: true,
      onread: { buffer: Buffer.allocUnsafe(256 * 1024), callback: (n, buf) => this.read(buf, n) },
    });
    this.socket.on('error', () => this.fail());
    this.socket.on('close', () => this.fail());
  }

  send(scheduled, start) {
    this.pending = { scheduled, start };
    this.head = '';
    this.state = 'head';
    this.socket.write(request);
  }

  read(buf, n) {
    let i = 0;
    while (i < n && this.pending) {
      if (this.state === 'head') {
        // Only the head becomes text, never the body that follows it in the same read.
        const upTo = Math.min(n, i + HEAD_SCAN);
        const head = this.head + buf.latin1Slice(i, upTo);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) {
          this.head = head;
          i = upTo;
          continue;
        }
        i += end + 4 - this.head.length;
        this.startBody(head.slice(0, end + 4));
      } else if (this.state === 'body') {
        const take = Math.min(this.remaining, n - i);
        bytes += take;
        this.remaining -= take;
        i += take;
        if (this.remaining === 0) this.done();
      } else {
        i = this.readChunked(buf, i, n);
      }
    }
  }

  startBody(head) {
    const status = Number(head.slice(9, 12));
    this.status = status;
    this.close = /\r\nconnection: *close\r\n/i.test(head);
    const length = /\r\ncontent-length: *(\d+)\r\n/i.exec(head);
    if (status === 204 || status === 304 || (status >= 100 && status < 200)) this.done();
    else if (/\r\ntransfer-encoding: *chunked\r\n/i.test(head)) {
      this.state = 'chunk-size';
      this.line = '';
    } else if (length) {
      this.state = 'body';
      this.remaining = Number(length[1]);
      if (this.remaining === 0) this.done();
    } else this.fail();
  }

  /** Reads a chunked body from buf[i..n): size lines, data (counted), the CRLF after each, the end. */
  readChunked(buf, i, n) {
    if (this.state === 'chunk-data') {
      const take = Math.min(this.remaining, n - i);
      bytes += take;
      this.remaining -= take;
      if (this.remaining === 0) this.state = 'chunk-size';
      return i + take;
    }
    // A size line (after the CRLF that ends the previous chunk), or the trailer after the last one.
    const nl = buf.indexOf(10, i);
    const end = nl < 0 || nl >= n ? n : nl + 1;
    this.line += buf.latin1Slice(i, end);
    if (!this.line.endsWith('\n')) return end;
    const line = this.line.trim();
    this.line = '';
    if (this.state === 'trailer') {
      if (line === '') this.done();
    } else if (line !== '') {
      this.remaining = parseInt(line, 16);
      this.state = this.remaining === 0 ? 'trailer' : 'chunk-data';
    }
    return end;
  }

  done() {
    const end = performance.now();
    const { scheduled, start } = this.pending;
    this.pending = null;
    statuses[this.status] = (statuses[this.status] ?? 0) + 1;
    latencies.push(end - scheduled);
    services.push(end - start);
    if (this.close) this.socket.destroy();
    else idle.push(this);
    finish();
  }

  fail() {
    const i = idle.indexOf(this);
    if (i >= 0) idle.splice(i, 1);
    if (!this.pending) return;
    this.pending = null;
    errors++;
    this.socket.destroy();
    finish();
  }
}

const cpu0 = process.cpuUsage();
const t0 = performance.now() + 50;
let sent = 0;
let done = 0;

function send(scheduled) {
  const start = performance.now();
  maxSendLag = Math.max(maxSendLag, start - scheduled);
  (idle.pop() ?? new Connection()).send(scheduled, start);
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
for (const c of idle) c.socket.destroy();
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
