/* global console, process, setTimeout, performance */
// The realtime benchmark (`npm run bench -- realtime`):
// 1. One instance (SQLite), REALTIME_CLIENTS (10,000) streams opened by a second process on
//    127.0.0.1, all subscribed to one member's record: the server's RSS with all connected, and
//    the time from the change (PATCH) to the last stream receiving its event.
// 2. Two instances on one PostgreSQL database (BENCH_DATABASE_URL, or a database created on
//    postgres://postgres@127.0.0.1:5432): a change made through B, 200 times, until the event
//    arrives on a stream connected to A; p50 / p99 (send of the PATCH to arrival: includes B's work).
// Each stream is a file descriptor on both sides: `ulimit -n` must exceed the client count (the
// script says so and stops when it does not; raise it with `ulimit -n 20000`).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import readline from 'node:readline';
import { api, benchDatabase, createVerifiedUser, root, startGatehouse, table } from './lib.mjs';

const CLIENTS = Number(process.env.REALTIME_CLIENTS ?? 10_000);
const CROSS_RUNS = 200;
/** With all the streams connected: the server's RSS, and one event to every stream. */
const RSS_TARGET_MIB = 200;
const EVENT_TARGET_MS = 400;

function openFilesLimit() {
  const out = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim();
  return out === 'unlimited' ? Infinity : Number(out);
}

function rssMiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024);
}

async function signedIn(app) {
  const user = await createVerifiedUser(app);
  const auth = await api(app.url, 'POST', '/api/collections/users/auth-with-password', {
    identity: user.email,
    password: user.password,
  });
  return { ...user, id: auth.record.id };
}

const toggle = (app, user, visible) =>
  api(
    app.url,
    'PATCH',
    `/api/collections/users/records/${user.id}`,
    { emailVisibility: visible },
    user.token,
  );

async function fanOut() {
  const limit = openFilesLimit();
  if (limit < CLIENTS + 1000) {
    throw new Error(
      `ulimit -n is ${limit}: ${CLIENTS} streams need more than ${CLIENTS + 1000} (run \`ulimit -n 20000\` first).`,
    );
  }
  const app = await startGatehouse();
  try {
    const user = await signedIn(app);
    const idleRss = rssMiB(app.pid);
    const opening = performance.now();
    const clients = spawn(
      process.execPath,
      [`${root}/bench/realtime-clients.mjs`, app.url, user.token, user.id, String(CLIENTS)],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const lines = readline.createInterface({ input: clients.stdout });
    const next = () =>
      new Promise((resolve, reject) => {
        lines.once('line', resolve);
        clients.once('exit', (code) => reject(new Error(`the client process exited (${code})`)));
      });
    if ((await next()) !== 'ready') throw new Error('the client process did not get ready');
    const openSeconds = (performance.now() - opening) / 1000;
    // Let the server settle (GC) before reading its memory.
    await new Promise((r) => setTimeout(r, 2000));
    const metricsRss = rssMiB(app.pid);
    const started = Date.now();
    const done = next();
    await toggle(app, user, true);
    clients.stdin.write('go\n');
    const result = JSON.parse((await done).replace(/^done /, ''));
    return {
      clients: CLIENTS,
      received: result.received,
      openSeconds: Math.round(openSeconds * 10) / 10,
      idleRssMiB: idleRss,
      rssMiB: metricsRss,
      firstMs: result.firstMs - started,
      allMs: result.lastMs - started,
    };
  } finally {
    await app.close();
  }
}

/** One stream on `url`, subscribed to the member's record; resolves arrivals one by one. */
async function stream(url, user) {
  const arrivals = [];
  let waiting = null;
  let clientId = '';
  const req = http.get(`${url}/api/realtime`);
  const res = await new Promise((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  res.setEncoding('utf8');
  let gotId;
  const idReady = new Promise((resolve) => (gotId = resolve));
  res.on('data', (chunk) => {
    if (!clientId) {
      const m = /"clientId":"(\w+)"/.exec(chunk);
      if (m) {
        clientId = m[1];
        gotId();
      }
      return;
    }
    if (chunk.includes(`event:users/${user.id}`)) {
      const at = performance.now();
      if (waiting) {
        waiting(at);
        waiting = null;
      } else arrivals.push(at);
    }
  });
  await idReady;
  await api(
    url,
    'POST',
    '/api/realtime',
    { clientId, subscriptions: [`users/${user.id}`] },
    user.token,
  );
  return {
    next: () =>
      arrivals.length > 0
        ? Promise.resolve(arrivals.shift())
        : new Promise((resolve) => (waiting = resolve)),
    close: () => req.destroy(),
  };
}

async function crossInstance() {
  const database = await benchDatabase();
  const env = {
    DATABASE_URL: database.url,
    TOKEN_SECRET: 'bench-only-token-secret-0123456789abcdef',
  };
  const a = await startGatehouse(env);
  let b;
  try {
    b = await startGatehouse(env, { restart: true });
    const user = await signedIn(a);
    const onA = await stream(a.url, user);
    const ms = [];
    try {
      for (let i = 0; i < CROSS_RUNS; i++) {
        const sent = performance.now();
        const arrived = onA.next();
        await toggle(b, user, i % 2 === 0);
        ms.push((await arrived) - sent);
      }
    } finally {
      onA.close();
    }
    ms.sort((x, y) => x - y);
    const at = (q) => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] * 10) / 10;
    return { runs: CROSS_RUNS, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
  } finally {
    await b?.close();
    await a.close();
    await database.drop();
  }
}

export async function runRealtime() {
  console.log(`Realtime: ${CLIENTS} streams on one instance (SQLite)…`);
  const fan = await fanOut();
  console.log(
    table(
      [
        ['streams connected', `${fan.received} of ${fan.clients} got the event`, ''],
        ['time to open and subscribe all', `${fan.openSeconds} s`, ''],
        [
          'server RSS, idle → all connected',
          `${fan.idleRssMiB} → ${fan.rssMiB} MiB`,
          `≤ ${RSS_TARGET_MIB} MiB: ${fan.rssMiB <= RSS_TARGET_MIB ? 'met' : 'NOT MET'}`,
        ],
        [
          'one event to the first / to all',
          `${fan.firstMs} / ${fan.allMs} ms`,
          `all ≤ ${EVENT_TARGET_MS} ms: ${fan.allMs <= EVENT_TARGET_MS && fan.received === fan.clients ? 'met' : 'NOT MET'}`,
        ],
      ],
      ['realtime fan-out', 'measured', 'target'],
    ),
  );
  console.log(`\nCross-instance: a change on B, the event on A (PostgreSQL), ${CROSS_RUNS} runs…`);
  const cross = await crossInstance();
  console.log(
    table(
      [
        [
          'change on B → event on A',
          `p50 ${cross.p50Ms} ms, p99 ${cross.p99Ms} ms, max ${cross.maxMs} ms`,
          'p99 ≤ 100 ms',
        ],
      ],
      ['cross-instance', 'measured', 'target'],
    ),
  );
  return { fanOut: fan, crossInstance: cross };
}
