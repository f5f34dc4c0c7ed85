import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import { request } from '../support/http.js';
import { inviteCodeFrom, strongPassword } from '../support/server.js';

/**
 * A write that fails because the disk is full (here: the server process's file-size limit, set
 * with `prlimit` once it has started, which fails SQLite's write the same way) makes SQLite roll the transaction back by itself; the
 * ROLLBACK that follows then fails with "cannot rollback - no transaction is active". The log
 * must name the write's own error, not only the rollback's.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
/** KiB: room for the migrated database and its WAL (~150 KiB), not for 1,000 codes more (~360). */
const FILE_SIZE_LIMIT_KIB = 300;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(find: () => T | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a write that fails on a full disk', () => {
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const c of cleanups.reverse()) c();
  });

  it('is logged with its own cause, not with the failed rollback that follows it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-full-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PORT: String(port),
        HOST: '127.0.0.1',
        APP_URL: 'http://app.test',
        DATA_DIR: dir,
        RATE_LIMITS: 'off',
        LOG_LEVEL: 'warn',
        // The sign-up writes this many codes in its transaction: more than the limit allows.
        INVITES_PER_USER: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => void child.kill('SIGKILL'));
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));

    const link = await waitFor(
      () => output.match(/http:\/\/app\.test\/signup\?code=[^\s"]+/)?.[0],
      30_000,
      `the bootstrap link in:\n${output}`,
    );
    // Started (the database is migrated): from now on no file of the process may grow past this.
    execFileSync('prlimit', ['--pid', String(child.pid), `--fsize=${FILE_SIZE_LIMIT_KIB * 1024}`]);
    const url = `http://127.0.0.1:${port}`;
    const password = strongPassword();
    const res = await request(url, 'POST', PATHS.records, {
      body: {
        email: 'full-disk@example.com',
        password,
        passwordConfirm: password,
        inviteCode: inviteCodeFrom(link),
      },
    });
    expect(res.status, res.text).toBe(500);

    const failed = await waitFor(
      () =>
        output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { msg?: string; err?: { message?: string } })
          .find((entry) => entry.msg === 'request failed'),
      5000,
      `the request-failed log line in:\n${output}`,
    );
    expect(failed.err?.message).not.toMatch(/cannot rollback/);
    expect(failed.err?.message).toMatch(/disk I\/O error|database or disk is full/);
    child.kill('SIGTERM');
  }, 60_000);
});
