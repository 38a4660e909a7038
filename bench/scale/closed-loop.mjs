// Closed-loop load generator for bench/scale/concurrent-viewers.ts, in a process of its own so it
// never shares the server's event loop: `connections` keep-alive clients (autocannon), each asking
// for the next of `paths` as soon as its last answer ended. Reads one JSON job from argv:
// {base, paths, headers, connections, seconds}; prints one JSON line of figures.
import autocannon from 'autocannon';

const job = JSON.parse(process.argv[2] ?? '{}');
let next = 0;
const cpu0 = process.cpuUsage();
const result = await autocannon({
  url: job.base,
  connections: job.connections,
  duration: job.seconds,
  headers: job.headers,
  requests: [
    {
      setupRequest: (req) => ({ ...req, path: job.paths[next++ % job.paths.length] }),
    },
  ],
});
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.average,
    bytesPerSecond: result.throughput.average,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    clientCpuMs: (cpu.user + cpu.system) / 1000,
  }),
);
