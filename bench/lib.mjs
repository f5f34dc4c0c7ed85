/* global process, fetch, setTimeout, URL, WebSocket */
// Shared by the benchmarks: the real built server in a child process (through the test harness,
// test-harness/, like the server's tests and the browser journeys), its API, tables and results.
import { existsSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort } from '../test-harness/ports.js';
import { startServerProcess } from '../test-harness/server-process.js';

export const root = path.resolve(import.meta.dirname, '..');

export function requireBuild() {
  for (const built of ['server/dist/main.js', 'web/dist/index.html']) {
    if (!existsSync(path.join(root, built))) {
      throw new Error(`${built} is missing: run \`npm run build\` first.`);
    }
  }
}

/**
 * Node's own flags for the measured server, from BENCH_NODE_ARGS: `--cpu-prof --cpu-prof-dir=DIR`
 * profiles it under the benchmark's load (Node refuses those in NODE_OPTIONS).
 */
function nodeArgs() {
  return (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/**
 * The build the benchmarks measure: server/dist, or BENCH_SERVER (another build's folder inside the
 * repository, e.g. one made in a worktree while server/dist is rebuilt by others).
 */
function defaultEntry() {
  return path.join(process.env.BENCH_SERVER ?? 'server/dist', 'main.js');
}

/**
 * A full garbage collection in a server started with `--inspect=127.0.0.1:0` (its `output` names
 * the inspector's address), through the DevTools protocol: what remains is what the server holds.
 * Needs a WebSocket client: Node 20 has one with --experimental-websocket (`npm run bench` sets it).
 */
export async function collectGarbage(output) {
  const address = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
  if (!address) throw new Error('The server was not started with --inspect.');
  const socket = new WebSocket(address);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error(`No inspector at ${address}`));
  });
  try {
    await new Promise((resolve, reject) => {
      socket.onmessage = (event) => {
        const message = JSON.parse(String(event.data));
        if (message.id !== 1) return;
        if (message.error) reject(new Error(message.error.message));
        else resolve();
      };
      socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
    });
  } finally {
    socket.close();
  }
}

/**
 * Starts `node server/dist/main.js` on a free port with a fresh SQLite DATA_DIR (or the empty
 * PostgreSQL database of BENCH_DATABASE_URL), limits off,
 * JSON logs at the default level and mail printed to its console (whose `mail printed` lines
 * `mailLink` reads).
 * `entry` starts another build instead (the compare benchmark's baseline).
 */
export async function startGatehouse(
  extraEnv = {},
  { restart = false, flags = [], entry = defaultEntry() } = {},
) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startServerProcess({
    entry,
    nodeArgs: [...nodeArgs(), ...flags],
    port,
    inheritEnv: true,
    tempDataDir: 'gatehouse-bench-',
    env: {
      APP_URL: url,
      // BENCH_DATABASE_URL=postgres://… (an empty database) measures on PostgreSQL instead.
      DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
      // PostgreSQL needs a signing secret from the environment.
      ...(process.env.BENCH_DATABASE_URL && !process.env.TOKEN_SECRET
        ? { TOKEN_SECRET: 'bench-only-token-secret-0123456789abcdef' }
        : {}),
      REDIS_URL: '',
      SMTP_URL: '',
      RATE_LIMITS: 'off',
      // What an operator runs: the default level (info, the request log on). BENCH_LOG_LEVEL=warn
      // measures a quieter server beside it.
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      LOG_FORMAT: 'json',
      ENV_FILE: '',
      NODE_ENV: 'production',
      ...extraEnv,
    },
    // A first start prints the sign-up link of the initial user; a restart only that it runs.
    readyOutput: restart
      ? /"url":"(https?:\/\/[^"]+)"/
      : /"initialAccountLink":"(https?:\/\/[^"]+\/signup\?code=[^"]+)"/,
    readyPath: null,
    killAfterMs: 10_000,
    outputTail: 3000,
  });
  const output = server.output;
  return {
    url,
    bootstrapLink: server.match?.[1],
    pid: server.pid,
    /** Its fresh DATA_DIR (SQLite's files, secret.key). */
    dataDir: server.dataDir,
    output,
    /** The link of the newest printed mail to `email` with the given subject start. */
    async mailLink(email, subjectStart, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        // The JSON log line of a mail printed instead of sent (recipient redacted: a***@host).
        const to = `${email[0]}***${email.slice(email.lastIndexOf('@'))}`;
        const link = output()
          .split('\n')
          .filter((line) => line.includes('"mail printed'))
          .map((line) => JSON.parse(line))
          .reverse()
          .find((m) => m.to === to && m.subject.startsWith(subjectStart))?.link;
        if (link) return link;
        if (Date.now() > deadline) throw new Error(`No mail to ${email} printed:\n${output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    /** Stops it (SIGTERM, SIGKILL after 10 s) and removes its data directory. */
    close: () => server.stop(),
  };
}

export async function api(base, method, route, body, token) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: token } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Signs up through the real API with the bootstrap code, verifies from the printed mail. */
export async function createVerifiedUser(app) {
  const email = `bench-${randomBytes(4).toString('hex')}@example.com`;
  const password = `Bench-${randomBytes(9).toString('base64url')}`;
  const inviteCode = new URL(app.bootstrapLink).searchParams.get('code');
  await api(app.url, 'POST', '/api/collections/users/records', {
    email,
    password,
    passwordConfirm: password,
    inviteCode,
  });
  await api(app.url, 'POST', '/api/collections/users/request-verification', { email });
  const link = await app.mailLink(email, 'Verify');
  const token = new URL(link).searchParams.get('token');
  await api(app.url, 'POST', '/api/collections/users/confirm-verification', { token });
  const auth = await api(app.url, 'POST', '/api/collections/users/auth-with-password', {
    identity: email,
    password,
  });
  if (!auth.record.verified) throw new Error('The bench user is not verified');
  return { email, password, token: auth.token };
}

export function startHello() {
  return startReference('hello.mjs', 'The hello-world server');
}

/** bench/fastify-floor.mjs: bare Fastify giving the invite-codes answer (load.mjs). */
export async function startFastifyFloor() {
  const floor = await startReference('fastify-floor.mjs', 'The bare Fastify server');
  return { ...floor, url: `${floor.url}/api/invite-codes` };
}

/** A reference server from bench/ in its own process, on the port it is given; it prints `ready <port>`. */
async function startReference(script, name) {
  const port = await freePort();
  const server = await startServerProcess({
    entry: `bench/${script}`,
    args: [String(port)],
    port,
    inheritEnv: true,
    readyOutput: /ready \d+/,
    readyPath: null,
    killAfterMs: 10_000,
    name,
    outputTail: 3000,
  });
  return { url: server.url, pid: server.pid, close: () => server.stop() };
}

/** The middle value (the upper one of an even count). */
export function median(values) {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/**
 * The CPU time (user + system, all threads) a process has used so far, in ms, read from
 * /proc/<pid>/stat (Linux, 100 ticks a second); undefined where there is no /proc.
 */
export function cpuMs(pid) {
  const split = cpuSplitMs(pid);
  return split && split.user + split.system;
}

/** cpuMs() in its two parts: in the process's own code (user) and in the kernel (system). */
export function cpuSplitMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return undefined;
  }
}

export function machine() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

/** Prints rows as an aligned text table. */
export function table(rows, headers) {
  const all = [headers, ...rows].map((r) => r.map((c) => String(c)));
  const widths = headers.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
  return [
    line(all[0]),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...all.slice(1).map(line),
  ].join('\n');
}

export async function saveResults(section, data) {
  const dir = path.join(root, 'bench', 'results');
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, 'latest.json');
  let all = {};
  try {
    all = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    // first run
  }
  all[section] = data;
  await fs.writeFile(file, `${JSON.stringify(all, null, 2)}\n`);
  return file;
}

const PG_ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The PostgreSQL database to measure on: BENCH_DATABASE_URL (an empty database, kept), or a new
 * one made on the local server and dropped by `drop()`.
 */
export async function benchDatabase() {
  if (process.env.BENCH_DATABASE_URL) {
    return { url: process.env.BENCH_DATABASE_URL, drop: async () => {} };
  }
  const name = `gh_bench_${randomBytes(5).toString('hex')}`;
  const admin = async (statement) => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
