import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import {
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
} from '../support/server.js';

/**
 * Another process (an operator's sqlite3 shell, a script) holds SQLite's write lock. The driver
 * is synchronous: waiting for the lock blocks the event loop, so the wait is short and a write
 * that cannot get the lock answers 503 with Retry-After instead of freezing every request.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const UNAVAILABLE = { data: {}, message: MSG[503], status: 503 };

/** A child process that takes the write lock (BEGIN IMMEDIATE) and holds it until told. */
async function holdWriteLock(file: string): Promise<{ release: () => Promise<void> }> {
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });
  `;
  const child: ChildProcess = spawn(process.execPath, ['-e', script, file], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`lock holder exited (${code})`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    release: async () => {
      child.stdin!.write('go\n');
      await exited;
    },
  };
}

async function timed<T>(work: Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const result = await work;
  return [result, performance.now() - start];
}

describe('a SQLite write lock held by another process', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite' });
    await t.initialUser();
  });
  afterAll(() => t?.close());

  it('writes answer 503 with Retry-After within a second, /api/health stays fast, /api/ready is 503; writes succeed once released', async () => {
    const code = await t.newCode();
    const email = uniqueEmail('locked');
    const password = strongPassword();
    const lock = await holdWriteLock(path.join(t.dataDir, 'gatehouse.db'));
    let released = false;
    try {
      const [signUp, signUpMs] = await timed(t.signUp(code, email, password));
      expect(signUp.status, signUp.text).toBe(503);
      expect(signUp.body).toEqual(UNAVAILABLE);
      expect(Number(signUp.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(signUpMs).toBeLessThan(1000);

      // Health answers while writes keep failing (each waits at most the short busy time-out).
      const [[health, again], bothMs] = await timed(
        Promise.all([t.get(PATHS.health), t.signUp(code, email, password)]),
      );
      expect(health.status).toBe(200);
      expect(again.status).toBe(503);
      expect(bothMs).toBeLessThan(1000);

      const [ready, readyMs] = await timed(t.get(PATHS.ready));
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual(UNAVAILABLE);
      expect(ready.headers['retry-after']).toBeDefined();
      expect(readyMs).toBeLessThan(1500);

      // Reads do not need the write lock (WAL): a signed-in member's pages still load. Signing
      // in writes (it opens a session), so it waits like any write.
      const initial = await t.initialUser();
      expect((await t.get(PATHS.codes, initial.token)).status).toBe(200);
      const login = await t.login(initial.email, initial.password);
      expect(login.status).toBe(503);
      expect(login.body).toEqual(UNAVAILABLE);

      await lock.release();
      released = true;
      expect((await t.get(PATHS.ready)).status).toBe(200);
      const after = await t.signUp(code, email, password);
      expect(after.status, 'the code was not used by the failed attempts').toBe(200);
    } finally {
      if (!released) await lock.release();
    }
  }, 30_000);
});
