/* global console, process, performance */
// The restart benchmark: how long `npm start` and `node server/dist/main.js` take, with the
// sources already built, from spawning them to the first 200 from /api/health. Five runs of each
// on one SQLite DATA_DIR (the first creates it), alternating.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test-harness/ports.js';
import { startServerProcess } from '../test-harness/server-process.js';
import { cpuMs, root, table } from './lib.mjs';

const RUNS = 5;
/** Node's flags for `node server/dist/main.js` (BENCH_NODE_ARGS, e.g. --enable-source-maps). */
const nodeFlags = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** An earlier build to start alternately with this one (its `node` figures only). */
const BASELINE = process.env.BENCH_BASELINE;
/** `node server/dist/main.js` to the first 200, wall time (ms), on an idle machine. */
const NODE_TARGET_MS = 300;

/** One start: `npm start`, or (`node`) the built file itself; its wall time and, for node, CPU. */
async function oneStart(env, node, dist = process.env.BENCH_SERVER ?? 'server/dist') {
  const port = await freePort();
  const started = performance.now();
  // npm: its own process group, so npm, the shell and node are stopped together. Asked every 5 ms.
  const server = await startServerProcess({
    ...(node
      ? { entry: path.join(dist, 'main.js'), nodeArgs: nodeFlags }
      : { command: 'npm', args: ['start'], detached: true }),
    port,
    inheritEnv: true,
    env: { ...env, APP_URL: `http://127.0.0.1:${port}` },
    pollMs: 5,
    timeoutMs: 60_000,
    name: node ? '`node server/dist/main.js`' : '`npm start`',
  });
  try {
    const ms = performance.now() - started;
    // The process's own CPU time up to its first answer (all its threads): what the start costs
    // whatever else the machine is doing.
    const cpu = node ? cpuMs(server.pid) : undefined;
    if (/Building/.test(server.output())) {
      throw new Error(`npm start built: the sources were not built.`);
    }
    return { ms, cpu };
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
  };
  const npm = [];
  const node = [];
  const baseline = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      npm.push(await oneStart(env, false));
      node.push(await oneStart(env, true));
      if (BASELINE) baseline.push(await oneStart(env, true, BASELINE));
    }
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
  const stats = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      runs: values.map(Math.round),
      minMs: Math.round(sorted[0]),
      medianMs: Math.round(sorted[Math.floor(values.length / 2)]),
      maxMs: Math.round(sorted[values.length - 1]),
    };
  };
  const result = {
    ...stats(npm.map((r) => r.ms)),
    node: stats(node.map((r) => r.ms)),
    nodeCpu: stats(node.map((r) => r.cpu ?? 0)),
    ...(BASELINE
      ? {
          baseline: stats(baseline.map((r) => r.ms)),
          baselineCpu: stats(baseline.map((r) => r.cpu ?? 0)),
        }
      : {}),
  };
  const met = result.node.medianMs <= NODE_TARGET_MS;
  const ms = (n) => `${Math.round(n)} ms`;
  const row = (name, s, target) => [name, ms(s.minMs), ms(s.medianMs), ms(s.maxMs), target];
  console.log(
    table(
      [
        row('`npm start` → first 200 from /api/health', result, ''),
        row(
          '`node server/dist/main.js` → first 200',
          result.node,
          `median <= ${NODE_TARGET_MS} ms: ${met ? 'met' : 'NOT MET'}`,
        ),
        row('  its CPU time to the first 200', result.nodeCpu, ''),
        ...(BASELINE
          ? [
              row(`${BASELINE}/main.js → first 200`, result.baseline, ''),
              row('  its CPU time to the first 200', result.baselineCpu, ''),
            ]
          : []),
      ],
      ['measure (5 runs each, built sources)', 'min', 'median', 'max', 'target'],
    ),
  );
  console.log(`npm start: ${result.runs.map((n) => `${n} ms`).join(', ')}`);
  console.log(`node:      ${result.node.runs.map((n) => `${n} ms`).join(', ')}`);
  result.target = { nodeMedianMs: `<= ${NODE_TARGET_MS}`, met };
  return result;
}
