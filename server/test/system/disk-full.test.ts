import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import { request } from '../support/http.js';
import { inviteCodeFrom, strongPassword } from '../support/server.js';
import { startServerProcess } from '../../../test-harness/server-process.js';

/**
 * A write that fails because the disk is full (here: the server process's file-size limit, set
 * with `prlimit` once it has started, which fails SQLite's write the same way) makes SQLite roll the transaction back by itself; the
 * ROLLBACK that follows then fails with "cannot rollback - no transaction is active". The log
 * must name the write's own error, not only the rollback's.
 */
/** KiB: room for the migrated database and its WAL (~150 KiB), not for 1,000 codes more (~360). */
const FILE_SIZE_LIMIT_KIB = 300;

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
    const server = await startServerProcess({
      entry: 'server/src/main.ts',
      env: {
        APP_URL: 'http://app.test',
        DATA_DIR: dir,
        RATE_LIMITS: 'off',
        LOG_LEVEL: 'warn',
        // The sign-up writes this many codes in its transaction: more than the limit allows.
        INVITES_PER_USER: '1000',
      },
      readyOutput: /http:\/\/app\.test\/signup\?code=[^\s"]+/,
      readyPath: null,
      name: 'The server',
    });
    cleanups.push(() => void server.kill());
    const link = server.match![0];
    // Started (the database is migrated): from now on no file of the process may grow past this.
    execFileSync('prlimit', ['--pid', String(server.pid), `--fsize=${FILE_SIZE_LIMIT_KIB * 1024}`]);
    const url = server.url;
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
        server
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { msg?: string; err?: { message?: string } })
          .find((entry) => entry.msg === 'request failed'),
      5000,
      `the request-failed log line in:\n${server.output()}`,
    );
    expect(failed.err?.message).not.toMatch(/cannot rollback/);
    expect(failed.err?.message).toMatch(/disk I\/O error|database or disk is full/);
    await server.stop();
  }, 60_000);
});
