import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startedWithYoungGenerationFlag, YOUNG_GENERATION_FLAG } from '../src/heap-tuning';
import { repoRoot } from '../src/paths';

describe('the young generation flag', () => {
  const nodeOptions = process.env.NODE_OPTIONS;
  afterEach(() => {
    if (nodeOptions === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = nodeOptions;
  });

  it('is passed by `npm start`, `npm run demo` and the image, which V8 reads only at start', () => {
    const scripts = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts;
    expect(scripts.start).toBe(`node ${YOUNG_GENERATION_FLAG} scripts/start.mjs`);
    expect(scripts.demo).toBe(`node ${YOUNG_GENERATION_FLAG} scripts/demo.mjs`);
    const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(
      `ENTRYPOINT ["node", "${YOUNG_GENERATION_FLAG}", "apps/server/dist/main.js"]`,
    );
  });

  it('is found in NODE_OPTIONS as well as on the command line', () => {
    process.env.NODE_OPTIONS = '--enable-source-maps';
    const onCommandLine = process.execArgv.includes(YOUNG_GENERATION_FLAG);
    expect(startedWithYoungGenerationFlag()).toBe(onCommandLine);
    process.env.NODE_OPTIONS = `--enable-source-maps ${YOUNG_GENERATION_FLAG}`;
    expect(startedWithYoungGenerationFlag()).toBe(true);
  });
});
