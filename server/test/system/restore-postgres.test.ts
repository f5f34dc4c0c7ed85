import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tsxCli as cli } from '../support/cli.js';
import { PATHS } from '../support/contract.js';
import { changesAfterBackup, expectBackedUpData, modeOf } from '../support/restore-drill.js';
import { APP_URL, startTestServer } from '../support/server.js';

/**
 * `npm run cli -- backup FILE` and `restore FILE` on PostgreSQL (pg_dump -Fc and pg_restore from
 * Debian's postgresql-client), as an operator runs them: the same drill as on SQLite.
 */

describe('backup and restore (PostgreSQL)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-pg-restore-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));

  it('restore drill: the backed-up data comes back and every token issued before the restore is refused', async () => {
    const t = await startTestServer({ db: 'postgres' });
    cleanups.push(() => t.close());
    const dataDir = path.join(dir, 'data');
    const env = {
      DATA_DIR: dataDir,
      APP_URL,
      DATABASE_URL: t.databaseUrl!,
      TOKEN_SECRET: t.env.TOKEN_SECRET!,
    };
    const initial = await t.initialUser();
    const member = await t.verifiedUser();
    const beforeBackup = member.token;

    // Taken while the server runs.
    const backup = path.join(dir, 'gatehouse.dump');
    const b = await cli(['backup', backup], env);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout.trim()).toBe(`Backed up to ${backup}`);
    expect(modeOf(backup)).toBe('600');
    expect(readFileSync(backup).subarray(0, 5).toString()).toBe('PGDMP');
    const again = await cli(['backup', backup], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${backup} already exists. Add --force to replace it.`);

    const after = await changesAfterBackup(t, member);
    const { afterReset, newcomer } = after;

    // Refused while the server is connected; nothing is touched.
    const busy = await cli(['restore', backup], env);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/the database is in use .*: stop every server/);
    expect(existsSync(dataDir)).toBe(false);
    expect((await t.post(PATHS.refresh, {}, afterReset)).status).toBe(200);

    // Not a backup: refused before anything is touched.
    const text = path.join(dir, 'notes.txt');
    writeFileSync(text, 'not a database at all\n'.repeat(50));
    await t.stop();
    const notDump = await cli(['restore', text], env);
    expect(notDump.code).toBe(1);
    expect(notDump.stderr).toMatch(/is not a PostgreSQL backup made by pg_dump -Fc/);

    const r = await cli(['restore', backup], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Restored from .*gatehouse\.dump; the previous database is at /);
    const kept = readdirSync(dataDir).filter((f) => /^gatehouse\.before-restore-.*\.dump$/.test(f));
    expect(kept).toHaveLength(1);
    expect(modeOf(path.join(dataDir, kept[0]!))).toBe('600');
    expect(readFileSync(path.join(dataDir, kept[0]!)).subarray(0, 5).toString()).toBe('PGDMP');

    await t.start();
    await expectBackedUpData(t, member, after, {
      beforeBackup,
      afterReset,
      initial: initial.token,
      newcomer: newcomer.token,
    });
    // The kept dump restores the state from just before: the newcomer is back.
    await t.stop();
    const back = await cli(['restore', path.join(dataDir, kept[0]!)], env);
    expect(back.code, back.stderr).toBe(0);
    await t.start();
    expect((await t.login(newcomer.email, newcomer.password)).status).toBe(200);
  }, 180_000);
});
