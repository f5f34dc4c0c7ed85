/* global console, process, URL */
// `npm run bench -- compare`: the built server (server/dist) against an earlier build
// (BENCH_BASELINE, server/dist-baseline by default), both running at once on their own SQLite
// data, in many short rounds that alternate between them, over several sets of fresh processes.
// Each round reads the server's CPU time per answer; the median of the per-pair ratios is the
// figure, so that a slow spell of a shared machine weighs on both builds alike. For changes of a
// few per cent that one run of the load benchmark cannot tell apart.
import { existsSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { cpuMs, createVerifiedUser, median, root, startGatehouse, table } from './lib.mjs';

const SETS = Number(process.env.BENCH_COMPARE_SETS ?? 4);
const ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 8);
const SECONDS = 1.5;
const CONNECTIONS = 50;

function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

/**
 * The request each round sends: GET BENCH_COMPARE_ROUTE with the member's token by default, or
 * BENCH_COMPARE_METHOD with the JSON body BENCH_COMPARE_BODY, every answer expected to be
 * BENCH_COMPARE_STATUS (e.g. a sign-in whose body the action refuses: its validation path).
 */
const METHOD = process.env.BENCH_COMPARE_METHOD ?? 'GET';
const BODY = process.env.BENCH_COMPARE_BODY;
const STATUS = Number(process.env.BENCH_COMPARE_STATUS ?? 200);

async function round(server, pid) {
  const before = cpuMs(pid);
  const result = await cannon(server);
  const after = cpuMs(pid);
  const expected = result.statusCodeStats?.[STATUS]?.count ?? 0;
  if (result.errors > 0 || expected !== result.requests.total) {
    throw new Error(`${server.url} answered other than ${STATUS}`);
  }
  return { cpuUs: ((after - before) * 1000) / result.requests.total, rps: result.requests.average };
}

export async function runCompare() {
  const baseline = process.env.BENCH_BASELINE ?? 'server/dist-baseline';
  const entry = path.join(baseline, 'main.js');
  // The build measured against it: server/dist, or BENCH_CURRENT (another folder inside the
  // repository, e.g. a build made in a worktree while server/dist is rebuilt by others).
  const current = process.env.BENCH_CURRENT ?? 'server/dist';
  // The baseline's own environment (JSON), e.g. the same build with the request log off:
  // BENCH_BASELINE=server/dist BENCH_BASELINE_ENV='{"LOGS_RETENTION_DAYS":"0"}'.
  const baselineEnv = JSON.parse(process.env.BENCH_BASELINE_ENV ?? '{}');
  if (!existsSync(path.join(root, entry))) {
    throw new Error(
      `No baseline build at ${entry}. Build the earlier version and copy server/dist there, e.g.\n` +
        '  git stash && npm run build:server && rm -rf server/dist-baseline && ' +
        'cp -r server/dist server/dist-baseline && git stash pop && npm run build:server',
    );
  }
  if (cpuMs(process.pid) === undefined) throw new Error('compare reads /proc: Linux only.');
  const route = process.env.BENCH_COMPARE_ROUTE ?? '/api/invite-codes';
  const pairs = [];
  const setRatios = [];
  // Each set starts both builds afresh: two processes of one build differ by up to ~15 % in CPU
  // per answer (where their heap and code landed), so one pair of processes cannot tell a change
  // of a few per cent from that.
  for (let set = 1; set <= SETS; set += 1) {
    const builds = [];
    try {
      for (const [name, options, env] of [
        [current, { entry: path.join(current, 'main.js') }, {}],
        [baseline, { entry }, baselineEnv],
      ]) {
        const app = await startGatehouse(env, options);
        builds.push({ name, app });
        const user = await createVerifiedUser(app);
        builds.at(-1).server = {
          url: new URL(route, app.url).href,
          method: METHOD,
          headers: {
            authorization: user.token,
            ...(BODY ? { 'content-type': 'application/json' } : {}),
          },
          ...(BODY ? { body: BODY } : {}),
        };
      }
      console.log(
        `${METHOD} ${route}: set ${set}/${SETS}, fresh processes: warming up, then ${ROUNDS} pairs of ` +
          `${SECONDS}-s rounds...`,
      );
      for (const b of builds) await cannon({ ...b.server, duration: 3 });
      const setPairs = [];
      for (let i = 0; i < ROUNDS; i += 1) {
        // Alternate which goes first, so neither always follows the other.
        const order = i % 2 === 0 ? builds : [...builds].reverse();
        const got = new Map();
        for (const b of order) got.set(b, await round(b.server, b.app.pid));
        setPairs.push(builds.map((b) => got.get(b)));
      }
      setRatios.push(median(setPairs.map(([a, b]) => a.cpuUs / b.cpuUs)));
      pairs.push(...setPairs);
    } finally {
      for (const b of builds) await b.app.close();
    }
  }
  const [now, before] = [0, 1].map((i) => ({
    cpuUs: median(pairs.map((p) => p[i].cpuUs)),
    rps: median(pairs.map((p) => p[i].rps)),
  }));
  const cpuRatio = median(pairs.map(([a, b]) => a.cpuUs / b.cpuUs));
  const rpsRatio = median(pairs.map(([a, b]) => a.rps / b.rps));
  console.log(
    '\n' +
      table(
        [
          [current, `${now.cpuUs.toFixed(1)} µs`, `${Math.round(now.rps)} req/s`],
          [baseline, `${before.cpuUs.toFixed(1)} µs`, `${Math.round(before.rps)} req/s`],
          ['ratio (median of pairs)', cpuRatio.toFixed(3), rpsRatio.toFixed(3)],
          ['  CPU ratio of each set', setRatios.map((r) => r.toFixed(3)).join(', '), ''],
        ],
        ['build', 'server CPU per answer (median)', 'throughput (median)'],
      ),
  );
  return { route, sets: setRatios, rounds: ROUNDS, now, baseline: before, cpuRatio, rpsRatio };
}
