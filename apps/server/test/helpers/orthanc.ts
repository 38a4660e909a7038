import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ORTHANC_BIN = '/usr/sbin/Orthanc';
export const DICOMWEB_PLUGIN = '/usr/share/orthanc/plugins/libOrthancDicomWeb.so';
/** Debian's `orthanc` and `orthanc-dicomweb` packages (see .ci/run). */
export const orthancAvailable = existsSync(ORTHANC_BIN) && existsSync(DICOMWEB_PLUGIN);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface Orthanc {
  url: string;
  dicomweb: string;
  stop(): Promise<void>;
}

/** A throwaway Orthanc with the DICOMweb plugin: free ports, no auth, storage in a temp dir. */
export async function startOrthanc(
  dicomwebServers: Record<string, { Url: string; HttpHeaders?: Record<string, string> }> = {},
): Promise<Orthanc> {
  const dir = await mkdtemp(path.join(tmpdir(), 'orthanc-'));
  const [httpPort, dicomPort] = [await freePort(), await freePort()];
  const config = {
    Name: 'test',
    StorageDirectory: path.join(dir, 'db'),
    IndexDirectory: path.join(dir, 'db'),
    HttpPort: httpPort,
    DicomPort: dicomPort,
    RemoteAccessAllowed: false,
    AuthenticationEnabled: false,
    HttpServerEnabled: true,
    DicomServerEnabled: true,
    StableAge: 1,
    Plugins: [DICOMWEB_PLUGIN],
    DicomWeb: {
      Enable: true,
      Root: '/dicom-web/',
      EnableWado: true,
      WadoRoot: '/wado',
      Servers: dicomwebServers,
    },
  };
  const configFile = path.join(dir, 'orthanc.json');
  await writeFile(configFile, JSON.stringify(config));
  const proc: ChildProcess = spawn(ORTHANC_BIN, [configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${httpPort}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`Orthanc exited: ${stderr}`);
    try {
      const res = await fetch(`${url}/system`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`Orthanc did not start: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    dicomweb: `${url}/dicom-web`,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
