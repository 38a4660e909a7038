import { ConfigError, loadConfig, type Config } from './config';
import { DataDirLockedError } from './db/data-dir-lock';
import { openDatabase } from './db/client';
import { buildApp } from './http/app';
import { createLogger } from './logger';
import { repoRoot, webDistDir } from './paths';
import { buildViewerApp } from './modules/viewer';
import path from 'node:path';
import { ensureDemoData } from './modules/demo';
import { ensureAdmin, seedReferenceData } from './seed';
import { createServices } from './services';
import { startedWithYoungGenerationFlag, tuneHeapForUploads, YOUNG_GENERATION_FLAG } from './heap-tuning';

/** `serve` (API + SPA + jobs; `serve --no-jobs`: API + SPA) | `worker` (jobs only) | `migrate` | `seed` */
async function main(command: string, flags: string[]): Promise<void> {
  let config: Config;
  try {
    // `serve --no-jobs` is SERVE_RUNS_JOBS=false: an API-only node, with `worker` processes beside it.
    config = loadConfig(
      flags.includes('--no-jobs') ? { ...process.env, SERVE_RUNS_JOBS: 'false' } : process.env,
    );
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  containFailures(log);
  // Process-wide, so here and not where tests build services.
  if (command === 'serve' || command === 'worker') {
    tuneHeapForUploads();
    if (!startedWithYoungGenerationFlag())
      log.warn(
        `node was started without ${YOUNG_GENERATION_FLAG} (as \`npm start\` and the image do): large uploads will spend longer in garbage collection`,
      );
  }

  switch (command) {
    case 'serve': {
      const services = await createServices(config, log, { runWorkers: config.serveRunsJobs });
      await seedReferenceData(services);
      await ensureAdmin(services);
      if (config.demoData) await ensureDemoData(services);
      const app = await buildApp(services, { webDistDir });
      await app.listen({ port: config.port, host: config.host });
      log.info(
        `Medical Imaging is ready at ${config.publicUrl} (database: ${services.database.kind}, storage: ${services.storage.kind}, mail: ${services.mailer.kind}, jobs: ${config.serveRunsJobs ? 'run here' : 'left to worker processes'})`,
      );
      // The viewer has its own origin, so nothing of the app (cookies, storage) is reachable from it.
      const viewerApp = await buildViewerApp(services, {
        ohifDir: path.join(repoRoot, 'apps', 'viewer', 'ohif'),
        appConfigFile: path.join(repoRoot, 'apps', 'viewer', 'app-config.js'),
      });
      await viewerApp.listen({ port: config.viewerPort, host: config.host });
      log.info(`Viewer is ready at ${config.viewerPublicUrl}`);
      onShutdown(async () => {
        await viewerApp.close();
        await app.close();
        await services.close();
      });
      return;
    }
    case 'worker': {
      if (!config.databaseUrl) {
        console.error(
          'The worker command needs DATABASE_URL (PostgreSQL). On the embedded database, `serve` runs the jobs itself.',
        );
        process.exit(78);
      }
      const services = await createServices(config, log, { runWorkers: true });
      log.info('worker started');
      onShutdown(() => services.close());
      return;
    }
    case 'migrate': {
      const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      await database.migrate();
      await database.close();
      log.info('migrations applied');
      return;
    }
    case 'seed': {
      const services = await createServices(config, log, { runWorkers: false });
      await seedReferenceData(services);
      await ensureAdmin(services);
      if (config.demoData) await ensureDemoData(services);
      await services.close();
      return;
    }
    default:
      console.error(`Unknown command "${command}". Use: serve | worker | migrate | seed`);
      process.exit(64);
  }
}

/**
 * No single failure ends the process for every user. A library that rejects a promise nobody awaits
 * (pg-boss records a job's outcome that way) or throws from a callback is logged with its stack and
 * the server keeps serving; the failing request or job has already been answered or will be retried.
 */
function containFailures(log: ReturnType<typeof createLogger>): void {
  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, 'unhandled promise rejection (contained, the server keeps running)');
  });
  process.on('uncaughtException', (err, origin) => {
    log.error({ err, origin }, 'uncaught exception (contained, the server keeps running)');
  });
}

function onShutdown(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    stop()
      .then(() => process.exit(0))
      .catch((err) => {
        console.error(`shutdown after ${signal} failed`, err);
        process.exit(1);
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

main(process.argv[2] ?? 'serve', process.argv.slice(3)).catch((err) => {
  if (err instanceof DataDirLockedError) {
    console.error(err.message);
    process.exit(75);
  }
  console.error(err);
  process.exit(1);
});
