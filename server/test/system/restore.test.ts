import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { tsxCli as cli } from '../support/cli.js';
import { PATHS } from '../support/contract.js';
import { changesAfterBackup, expectBackedUpData, modeOf } from '../support/restore-drill.js';
import { APP_URL, createPgDatabase, startTestServer, testTokenSecret } from '../support/server.js';

/**
 * `npm run cli -- backup FILE` and `restore FILE`, as an operator runs them (their own process).
 * A restore ends every session: tokens issued before it, even one ended after the backup was
 * taken (by a password reset), must not come back with the restored data.
 */

describe('backup and restore (SQLite)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  });
  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-restore-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  it('restore drill: the backed-up data comes back and every token issued before the restore is refused', async () => {
    const t = await startTestServer({ db: 'sqlite' });
    cleanups.push(() => t.close());
    const env = { DATA_DIR: t.dataDir, APP_URL };
    const initial = await t.initialUser();
    const member = await t.verifiedUser();
    const beforeBackup = member.token;

    const backup = path.join(tempDir(), 'gatehouse-backup.db');
    const b = await cli(['backup', backup], env);
    expect(b.code, b.stderr).toBe(0);
    expect(modeOf(backup)).toBe('600');

    const after = await changesAfterBackup(t, member);
    const { afterReset, newcomer } = after;

    // Refused while the server runs; nothing is touched.
    const busy = await cli(['restore', backup], env);
    expect(busy.code).not.toBe(0);
    expect(busy.stderr).toMatch(/in use: stop the server/);
    expect(readdirSync(t.dataDir).filter((f) => f.includes('before-restore'))).toEqual([]);
    expect((await t.post(PATHS.refresh, {}, afterReset)).status).toBe(200);

    await t.stop();
    const r = await cli(['restore', backup], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Restored from .*gatehouse-backup\.db/);
    const kept = readdirSync(t.dataDir).filter((f) => /^gatehouse\.db\.before-restore-/.test(f));
    expect(kept).toHaveLength(1);
    expect(modeOf(path.join(t.dataDir, kept[0]!))).toBe('600');
    expect(modeOf(path.join(t.dataDir, 'gatehouse.db'))).toBe('600');
    // The kept database is the one from before the restore (it has the newcomer).
    const previous = new SQLite(path.join(t.dataDir, kept[0]!), { readonly: true });
    expect(previous.prepare('SELECT id FROM users WHERE id = ?').get(newcomer.id)).toBeDefined();
    previous.close();

    await t.start();
    await expectBackedUpData(t, member, after, {
      beforeBackup,
      afterReset,
      initial: initial.token,
      newcomer: newcomer.token,
    });
  }, 120_000);

  it('restore refuses a file that is not a Gatehouse SQLite database, and a SQLite file on PostgreSQL', async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const env = { DATA_DIR: dataDir, APP_URL };
    const text = path.join(dir, 'notes.txt');
    writeFileSync(text, 'not a database at all, just some text that is long enough\n'.repeat(20));
    const other = path.join(dir, 'other.db');
    new SQLite(other).exec('CREATE TABLE things (id TEXT)');

    const notSqlite = await cli(['restore', text], env);
    expect(notSqlite.code).not.toBe(0);
    expect(notSqlite.stderr).toMatch(/is not a SQLite database/);
    const notOurs = await cli(['restore', other], env);
    expect(notOurs.code).not.toBe(0);
    expect(notOurs.stderr).toMatch(/is not a Gatehouse database/);
    const missing = await cli(['restore', path.join(dir, 'missing.db')], env);
    expect(missing.code).not.toBe(0);
    expect(existsSync(path.join(dataDir, 'gatehouse.db'))).toBe(false);

    const target = await createPgDatabase();
    try {
      const pg = await cli(['restore', other], {
        ...env,
        DATABASE_URL: target.url,
        TOKEN_SECRET: testTokenSecret(),
      });
      expect(pg.code).not.toBe(0);
      expect(pg.stderr).toMatch(/is not a PostgreSQL backup made by pg_dump -Fc/);
    } finally {
      await target.drop();
    }
    // A PostgreSQL database that does not exist: said before anything else.
    const none = await cli(['restore', other], {
      ...env,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/none',
      TOKEN_SECRET: testTokenSecret(),
    });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      'No database at PostgreSQL 127.0.0.1:5432/none: create it first (createdb none), or check DATABASE_URL.\n',
    );
  }, 120_000);

  it('an unknown user of the data directory also blocks a restore (any process with the database open)', async () => {
    const dir = tempDir();
    const t = await startTestServer({ db: 'sqlite', env: { DATA_DIR: path.join(dir, 'data') } });
    cleanups.push(() => t.close());
    const backup = path.join(dir, 'b.db');
    const b = await cli(['backup', backup], { DATA_DIR: t.config.dataDir });
    expect(b.code, b.stderr).toBe(0);
    await t.stop();
    const holder = new SQLite(path.join(t.config.dataDir, 'gatehouse.db'), { readonly: true });
    holder.prepare('SELECT count(*) FROM users').get();
    try {
      // better-sqlite3 in this process holds the file open like another server would.
      const r = await cli(['restore', backup], { DATA_DIR: t.config.dataDir });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/in use/);
    } finally {
      holder.close();
    }
    const r = await cli(['restore', backup], { DATA_DIR: t.config.dataDir });
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
});
