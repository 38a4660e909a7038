// The plain-PUT contender of bench/ingest/run.ts: a bare Node HTTP server in a process of its own
// (as ours would be in production; none of its garbage in the server under test). With `file`, each
// request body is written to that file through Node's default stream buffer and synced before the
// answer (no tus, no parsing, no database); without, the bytes are only counted (what moving them
// over HTTP costs here). Prints one line {port} once listening; runs until killed.
//   {"file":…} or {}
import { closeSync, createWriteStream, fdatasyncSync, openSync } from 'node:fs';
import http from 'node:http';

const { file } = JSON.parse(process.argv[2] ?? '{}') as { file?: string };
const server = http.createServer((req, res) => {
  if (!file) {
    req.resume().on('end', () => res.end());
    return;
  }
  const out = createWriteStream(file);
  req.pipe(out);
  out.on('finish', () => {
    const fd = openSync(file, 'r');
    fdatasyncSync(fd);
    closeSync(fd);
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
