// The node flags the server is started with (`npm start`, the image), for benches that run the
// server in their own process: V8 sizes the young generation at start only, so a bench started
// without them runs itself again with them, or it would measure a server nobody runs.
import { spawnSync } from 'node:child_process';
import { startedWithYoungGenerationFlag, YOUNG_GENERATION_FLAG } from '../apps/server/src/heap-tuning';

/** Returns when this process runs with the server's flags; otherwise runs it again with them and exits. */
export function runWithServerFlags(): void {
  if (startedWithYoungGenerationFlag()) return;
  const again = spawnSync(
    process.execPath,
    [YOUNG_GENERATION_FLAG, ...process.execArgv, ...process.argv.slice(1)],
    { stdio: 'inherit' },
  );
  process.exit(again.status ?? 1);
}
