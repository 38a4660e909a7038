// Upload client for bench/ingest/run.ts, in its own process as a browser would be, so that sending
// the bytes does not take the server's event loop. Reads one JSON job from argv, reads the archive
// into memory before it starts the clock, uploads it and prints one line {start, end} in epoch
// milliseconds.
//   {"mode":"tus","file":…,"base":…,"token":…,"objectName":…,"chunkSize":…,"process":{url,headers,body}}
//   {"mode":"put","file":…,"url":…}   (a plain HTTP PUT of the same bytes)
//   {"mode":"orthanc","dir":…,"url":…} (each file of `dir` POSTed to Orthanc's /instances, 4 at a time)
// With `process`, it then asks for processing at once, as the upload page does ({processed} is
// when that call answered).
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { HttpRequest, HttpResponse, HttpStack } from 'tus-js-client';
import { tusUpload } from '../../apps/server/test/helpers/tus-upload';

const job = JSON.parse(process.argv[2] ?? '{}');
const data = job.file ? readFileSync(job.file) : Buffer.alloc(0);
const files = job.dir
  ? readdirSync(job.dir)
      .sort()
      .map((name) => readFileSync(path.join(job.dir, name)))
  : [];
const now = () => performance.timeOrigin + performance.now();

/**
 * tus-js-client's HTTP stack with each request's body sent in one write, as the PUT below sends its
 * bytes and as a browser hands a chunk (a Blob) to the network. tus-js-client's own Node stack writes
 * a Buffer 16 KiB at a time and waits for 'drain' after each write: 20,000 waits for this archive,
 * which made the client, not the server, set the pace of the upload (bench/README.md).
 */
class WholeBodyHttpStack implements HttpStack {
  getName() {
    return 'WholeBodyHttpStack';
  }
  createRequest(method: string, url: string): HttpRequest {
    const headers: Record<string, string> = {};
    let sent: http.ClientRequest | undefined;
    return {
      getMethod: () => method,
      getURL: () => url,
      setHeader: (name, value) => {
        headers[name] = value;
      },
      getHeader: (name) => headers[name],
      setProgressHandler: () => undefined,
      getUnderlyingObject: () => sent,
      abort: async () => {
        sent?.destroy();
      },
      send: (body?: Uint8Array) =>
        new Promise<HttpResponse>((resolve, reject) => {
          sent = http.request(url, { method, headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({
                getStatus: () => res.statusCode ?? 0,
                getHeader: (name) => {
                  const v = res.headers[name.toLowerCase()];
                  return Array.isArray(v) ? v.join(', ') : v;
                },
                getBody: () => Buffer.concat(chunks).toString('utf8'),
                getUnderlyingObject: () => res,
              }),
            );
          });
          sent.on('error', reject);
          sent.end(body);
        }),
    };
  }
}

function put(): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(job.url, { method: 'PUT', headers: { 'content-length': data.length } }, (res) =>
      res.resume().on('end', resolve),
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function postToOrthanc(): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < files.length) {
        const res = await fetch(job.url, { method: 'POST', body: files[next++]! });
        if (!res.ok) throw new Error(`Orthanc answered ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
}

// Node loads its fetch implementation on the first call, which a browser has long done: load it
// before the clock starts, so the process call below times the server, not this process.
if (job.process) await (await fetch(`${job.base}/api/health`)).arrayBuffer();
if (job.mode === 'orthanc') await (await fetch(new URL('/system', job.url))).arrayBuffer();

const start = now();
if (job.mode === 'put') await put();
else if (job.mode === 'orthanc') await postToOrthanc();
else
  await tusUpload(job.base, job.token, job.objectName, data, {
    chunkSize: job.chunkSize,
    httpStack: new WholeBodyHttpStack(),
  });
const end = now();
let processed: number | undefined;
if (job.process) {
  const res = await fetch(job.process.url, {
    method: 'POST',
    headers: { ...job.process.headers, 'content-type': 'application/json' },
    body: JSON.stringify(job.process.body),
  });
  if (res.status !== 202) throw new Error(`process call answered ${res.status}: ${await res.text()}`);
  processed = now();
}
process.stdout.write(`${JSON.stringify({ start, end, processed })}\n`);
