import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { freePort } from '../support/ports.js';
import { startTestServer, type TestServer, type User } from '../support/server.js';

/**
 * A PostgreSQL that stops answering (a stalled host, a frozen VM) must not hang requests for ever.
 * The test runs its own PostgreSQL (Debian's binaries, as the postgres user) and freezes it with
 * SIGSTOP: requests that need the database answer 503 within the time-out, the readiness check
 * says 503, /api/health stays fast; after SIGCONT everything recovers.
 */
const BIN = '/usr/lib/postgresql/15/bin';
const TIMEOUT_MS = 1000;
const UNAVAILABLE = { data: {}, message: MSG[503], status: 503 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timed<T>(work: Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await work;
  return [result, performance.now() - start];
}

/** A throw-away PostgreSQL cluster on a free port; `signal` reaches the postmaster and children. */
async function ownPostgres() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-pg-'));
  const { uid, gid } = os.userInfo({ encoding: 'utf8' }).uid === 0 ? pgUser() : os.userInfo();
  chownSync(dir, uid, gid);
  const data = path.join(dir, 'data');
  const asPostgres = (cmd: string, args: string[]) =>
    process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const [initCmd, initArgs] = asPostgres(`${BIN}/initdb`, [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
  ]);
  execFileSync(initCmd as string, initArgs as string[], { stdio: 'ignore' });
  const port = await freePort();
  const [cmd, args] = asPostgres(`${BIN}/postgres`, [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
  ]);
  const child: ChildProcess = spawn(cmd as string, args as string[], { stdio: 'ignore' });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.end();
      break;
    } catch {
      await c.end().catch(() => {});
      if (Date.now() > deadline) throw new Error('own PostgreSQL did not start');
      await sleep(200);
    }
  }
  const postmaster = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const signal = (sig: 'SIGSTOP' | 'SIGCONT') => {
    // The postmaster first (it then forks no new backend), then every child it has.
    process.kill(postmaster, sig);
    try {
      execFileSync('pkill', [`-${sig.slice(3)}`, '-P', String(postmaster)]);
    } catch {
      // no children
    }
  };
  return {
    url,
    signal,
    stop: async () => {
      signal('SIGCONT');
      process.kill(postmaster, 'SIGINT');
      await new Promise((resolve) => {
        if (child.exitCode !== null) resolve(null);
        child.once('exit', resolve);
        setTimeout(resolve, 10_000);
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function pgUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no postgres user');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

describe.skipIf(!existsSync(`${BIN}/postgres`))('a stalled PostgreSQL (SIGSTOP)', () => {
  let database: Awaited<ReturnType<typeof ownPostgres>>;
  let t: TestServer;
  let member: User;
  beforeAll(async () => {
    database = await ownPostgres();
    t = await startTestServer({
      db: 'postgres',
      databaseUrl: database.url,
      env: { DATABASE_TIMEOUT_MS: String(TIMEOUT_MS) },
    });
    member = await t.verifiedUser();
  }, 60_000);
  afterAll(async () => {
    database?.signal('SIGCONT');
    await t?.close();
    await database?.stop();
  });

  it('requests needing the database answer 503 within the time-out, readiness says 503, health stays fast; all recover after SIGCONT', async () => {
    expect((await t.get(PATHS.ready)).status).toBe(200);
    database.signal('SIGSTOP');
    let stopped = true;
    try {
      // Sign-in needs the database: 503 once the time-out (plus the second given to the
      // server to cancel first) has passed, not never.
      const signIn = t.login(member.email, member.password);
      const [health, healthMs] = await timed(t.get(PATHS.health));
      expect(health.status).toBe(200);
      expect(healthMs).toBeLessThan(500);
      const [res, ms] = await timed(signIn);
      expect(res.status, res.text).toBe(503);
      expect(res.body).toEqual(UNAVAILABLE);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(ms).toBeLessThan(2 * TIMEOUT_MS + 2000);

      // The next one needs a new connection, which cannot be made: 503 again, in time.
      const [second, secondMs] = await timed(t.login(member.email, member.password));
      expect(second.status).toBe(503);
      expect(secondMs).toBeLessThan(2 * TIMEOUT_MS + 2000);
      // A signed-in request too.
      expect((await t.get(PATHS.codes, member.token)).status).toBe(503);

      const [ready, readyMs] = await timed(t.get(PATHS.ready));
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual(UNAVAILABLE);
      expect(readyMs).toBeLessThan(2500);

      database.signal('SIGCONT');
      stopped = false;
      const deadline = Date.now() + 15_000;
      let recovered = await t.login(member.email, member.password);
      while (recovered.status !== 200 && Date.now() < deadline) {
        await sleep(250);
        recovered = await t.login(member.email, member.password);
      }
      expect(recovered.status, recovered.text).toBe(200);
      expect((await t.get(PATHS.ready)).status).toBe(200);
      expect((await t.get(PATHS.codes, member.token)).status).toBe(200);
    } finally {
      if (stopped) database.signal('SIGCONT');
    }
  }, 60_000);
});
