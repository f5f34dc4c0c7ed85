/* global console, process, setTimeout, URL */
// `npm test` runs this first: what the test suite needs from the machine, besides Node and the
// packages (docs/decisions/0059). Debian's Chromium for the browser journeys; PostgreSQL on
// 127.0.0.1:5432 as postgres without a password, with pg_dump and pg_restore; Redis on
// 127.0.0.1:6379 and redis-server (some tests start their own); nginx (the proxy and cluster tests
// start their own); openssl (the cluster test's certificate).
//
// Everything there: nothing is printed, in well under a second. Something missing, as root on
// Debian (apt-get): installs it and starts PostgreSQL and Redis, as CI does on a clean machine.
// Otherwise, or with TEST_PREREQUISITES=check (never installs or starts anything): one line per
// missing piece with the command that brings it, and exit code 1 before any test runs.
// TEST_PG_URL, TEST_REDIS_URL and CHROMIUM_PATH, when set, point the tests elsewhere: those are
// checked, never installed or started.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const env = process.env;
const PG_URL = env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const CHROMIUM = env.CHROMIUM_PATH || '/usr/bin/chromium';
const isRoot = process.getuid?.() === 0;
const sudo = isRoot ? '' : 'sudo ';
const TRUST_LINE = 'host all all 127.0.0.1/32 trust';

/** A program on PATH or in the sbin folders (which a user's PATH may lack); undefined if none. */
function program(name) {
  const dirs = [...(env.PATH ?? '').split(':'), '/usr/local/sbin', '/usr/sbin', '/sbin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Debian's PostgreSQL clusters' versions (/etc/postgresql/<version>/main), newest first. */
function pgVersions() {
  try {
    return fs
      .readdirSync('/etc/postgresql')
      .filter((v) => fs.existsSync(`/etc/postgresql/${v}/main/pg_hba.conf`))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    return [];
  }
}

/** 'ok', or why PostgreSQL did not answer `select 1`: 'down', 'auth' or another message. */
async function postgresState() {
  let pg;
  try {
    pg = (await import('pg')).default;
  } catch {
    return 'the pg package is missing: run npm install first';
  }
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return 'ok';
  } catch (error) {
    // A password asked for (the client has none to give), or no pg_hba.conf line for us.
    if (['28P01', '28000'].includes(error.code) || /password/i.test(error.message)) return 'auth';
    if (['ECONNREFUSED', 'ENOENT', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT'].includes(error.code))
      return 'down';
    if (/timeout/i.test(error.message)) return 'down';
    if (error.code === '57P03') return 'down'; // starting up
    return error.message;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Whether Redis answers PING with PONG within two seconds. */
function redisAnswers() {
  const url = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port || 6379) });
    let answer = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () =>
      socket.write(
        url.password ? `AUTH ${decodeURIComponent(url.password)}\r\nPING\r\n` : 'PING\r\n',
      ),
    );
    socket.on('data', (data) => {
      answer += data.toString();
      if (answer.includes('+PONG')) done(true);
      else if (answer.startsWith('-')) done(false);
    });
  });
}

function nodeIsRecent() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 20 || (major === 20 && minor >= 19);
}

/** What is there now. */
async function look() {
  const [postgres, redis] = await Promise.all([postgresState(), redisAnswers()]);
  return {
    node: nodeIsRecent(),
    chromium: fs.existsSync(CHROMIUM),
    postgres,
    pgTools: Boolean(program('pg_dump') && program('pg_restore')),
    redis,
    redisServer: Boolean(program('redis-server')),
    nginx: Boolean(program('nginx')),
    openssl: Boolean(program('openssl')),
  };
}

const REDIS_START =
  "redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no --dir /tmp";

/** One line per missing piece: what, and the command that brings it. */
function missingLines(state) {
  const lines = [];
  const apt = (packages) => `${sudo}apt-get install -y ${packages}`;
  if (!state.node) {
    lines.push(
      `Node.js 20.19 or later (this is ${process.versions.node}): install it from https://nodejs.org`,
    );
  }
  if (!state.chromium) {
    lines.push(
      env.CHROMIUM_PATH
        ? `Chromium at ${CHROMIUM} (CHROMIUM_PATH): no such file; unset CHROMIUM_PATH for /usr/bin/chromium`
        : `Chromium at /usr/bin/chromium: ${apt('chromium fonts-liberation')}`,
    );
  }
  if (state.postgres !== 'ok') {
    const what = env.TEST_PG_URL
      ? `PostgreSQL at TEST_PG_URL (${new URL(PG_URL).host})`
      : 'PostgreSQL 15 on 127.0.0.1:5432 (user postgres, no password)';
    const [version] = pgVersions();
    const hba = `/etc/postgresql/${version ?? '*'}/main/pg_hba.conf`;
    const trust = `${sudo}sed -i '1i ${TRUST_LINE}' ${hba}`;
    if (env.TEST_PG_URL || !['down', 'auth'].includes(state.postgres)) {
      lines.push(
        `${what}: ${state.postgres === 'down' ? 'does not answer' : state.postgres === 'auth' ? 'refuses the user without a password' : state.postgres}`,
      );
    } else if (state.postgres === 'auth') {
      lines.push(`${what}: ${trust} && ${sudo}pg_ctlcluster ${version ?? '15'} main reload`);
    } else if (version === undefined || !program('pg_ctlcluster')) {
      lines.push(
        `${what}: ${apt('postgresql')} && ${trust} && ${sudo}pg_ctlcluster $(ls /etc/postgresql) main restart`,
      );
    } else {
      lines.push(`${what}: ${sudo}pg_ctlcluster ${version} main start`);
    }
  }
  if (!state.pgTools) lines.push(`pg_dump and pg_restore: ${apt('postgresql-client')}`);
  if (!state.redisServer) lines.push(`redis-server (Redis 7): ${apt('redis-server')}`);
  if (!state.redis) {
    lines.push(
      env.TEST_REDIS_URL
        ? `Redis at TEST_REDIS_URL (${new URL(REDIS_URL).host}): does not answer`
        : `Redis on 127.0.0.1:6379: ${REDIS_START}`,
    );
  }
  if (!state.nginx) lines.push(`nginx: ${apt('nginx-light')}`);
  if (!state.openssl) lines.push(`openssl: ${apt('openssl')}`);
  return lines;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
    ...options,
  });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (exit code ${result.status})`);
  }
}

async function waitFor(check, seconds) {
  for (let i = 0; i < seconds * 4; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** As root with apt-get: installs what is missing and starts PostgreSQL and Redis. */
async function bringUp(state) {
  const packages = [];
  if (!state.chromium && !env.CHROMIUM_PATH) packages.push('chromium', 'fonts-liberation');
  const startPostgres = state.postgres === 'down' && !env.TEST_PG_URL;
  const installPostgres = startPostgres && (pgVersions().length === 0 || !program('pg_ctlcluster'));
  if (installPostgres) packages.push('postgresql');
  if (!state.pgTools) packages.push('postgresql-client');
  if (!state.redisServer) packages.push('redis-server');
  if (!state.nginx) packages.push('nginx-light');
  if (!state.openssl) packages.push('openssl');

  if (packages.length > 0) {
    console.error(`Installing for the tests (apt-get): ${packages.join(' ')}`);
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', ...packages]);
  }
  if (installPostgres) {
    // The tests connect as postgres over 127.0.0.1 without a password, as on the dev machines.
    const hba = `/etc/postgresql/${pgVersions()[0]}/main/pg_hba.conf`;
    const text = fs.readFileSync(hba, 'utf8');
    if (!text.startsWith(TRUST_LINE)) fs.writeFileSync(hba, `${TRUST_LINE}\n${text}`);
  }
  if (startPostgres) {
    const [version] = pgVersions();
    if (version !== undefined && program('pg_ctlcluster')) {
      const now = await postgresState();
      if (now !== 'ok') {
        console.error(`Starting PostgreSQL ${version} on 127.0.0.1:5432`);
        const action = now === 'down' ? 'start' : 'reload';
        spawnSync(
          program('pg_ctlcluster'),
          ['--skip-systemctl-redirect', version, 'main', action],
          { stdio: ['ignore', 'ignore', 'inherit'] },
        );
        await waitFor(async () => (await postgresState()) === 'ok', 30);
      }
    }
  }
  if (!state.redis && !env.TEST_REDIS_URL && program('redis-server') && !(await redisAnswers())) {
    console.error('Starting Redis on 127.0.0.1:6379');
    fs.mkdirSync('/var/lib/redis', { recursive: true });
    fs.mkdirSync('/var/log/redis', { recursive: true });
    run(program('redis-server'), [
      '--daemonize',
      'yes',
      '--bind',
      '127.0.0.1',
      '--port',
      '6379',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      '/var/lib/redis',
      '--logfile',
      '/var/log/redis/tests.log',
    ]);
    await waitFor(redisAnswers, 10);
  }
}

let state = await look();
let lines = missingLines(state);
const canInstall = env.TEST_PREREQUISITES !== 'check' && isRoot && Boolean(program('apt-get'));
if (lines.length > 0 && canInstall) {
  try {
    await bringUp(state);
  } catch (error) {
    console.error(error.message);
  }
  state = await look();
  lines = missingLines(state);
}
if (lines.length > 0) {
  console.error(
    canInstall
      ? 'The tests need these, which could not be brought up:'
      : 'The tests need these first (as root on Debian, npm test installs and starts them itself):',
  );
  for (const line of lines) console.error(`  ${line}`);
  process.exit(1);
}
