/* global console, process, performance */
// The restart benchmark: how long `npm start` takes, with the sources already built, from spawning
// it to the first 200 from /api/health. Five runs on one SQLite DATA_DIR (the first creates it).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test-harness/ports.js';
import { startServerProcess } from '../test-harness/server-process.js';
import { root, table } from './lib.mjs';

const RUNS = 5;

async function oneStart(env) {
  const port = await freePort();
  const started = performance.now();
  // Its own process group: npm, the shell and node are stopped together. Asked every 5 ms.
  const server = await startServerProcess({
    command: 'npm',
    args: ['start'],
    port,
    inheritEnv: true,
    env: { ...env, APP_URL: `http://127.0.0.1:${port}` },
    detached: true,
    pollMs: 5,
    timeoutMs: 60_000,
    name: '`npm start`',
  });
  try {
    const ms = performance.now() - started;
    if (/Building/.test(server.output())) {
      throw new Error(`npm start built: the sources were not built.`);
    }
    return ms;
  } finally {
    await server.stop();
  }
}

export async function runRestart() {
  // Build once if needed, so the runs measure a restart.
  const built = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('The build failed.');
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gatehouse-restart-'));
  const env = {
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    SMTP_URL: '',
    ENV_FILE: '',
    LOG_LEVEL: 'warn',
  };
  const times = [];
  try {
    for (let i = 0; i < RUNS; i++) times.push(await oneStart(env));
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  const sorted = [...times].sort((a, b) => a - b);
  const ms = (n) => `${Math.round(n)} ms`;
  const result = {
    runs: times.map(Math.round),
    minMs: Math.round(sorted[0]),
    medianMs: Math.round(sorted[Math.floor(RUNS / 2)]),
    maxMs: Math.round(sorted[RUNS - 1]),
  };
  console.log(
    table(
      [
        [
          '`npm start` → first 200 from /api/health',
          ms(result.minMs),
          ms(result.medianMs),
          ms(result.maxMs),
        ],
      ],
      ['measure (5 runs, built sources)', 'min', 'median', 'max'],
    ),
  );
  console.log(`Runs: ${result.runs.map((n) => `${n} ms`).join(', ')}`);
  return result;
}
