import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { backupDatabase } from '../../src/cli.js';
import { openDatabase } from '../../src/db/connect.js';
import { migrateTo } from '../../src/db/migrations/index.js';
import { signJwt } from '../../src/tools/jwt.js';
import { PATHS } from '../support/contract.js';
import { jwtPayload } from '../support/http.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Whoever can read the database (or a backup of it) must not be able to sign tokens: the signing
 * secret lives outside it (DATA_DIR/secret.key, or TOKEN_SECRET), and the files are the owner's.
 */
const DAY = 24 * 60 * 60;
const modeOf = (file: string) => statSync(file).mode & 0o777;

/**
 * An auth token for `user` on one of their sessions, signed as the server signs them, with the
 * given server secret.
 */
function forge(user: { id: string; token_key: string; sid: string }, serverSecret: string): string {
  return signJwt(
    {
      collectionId: '_pb_users_auth_',
      exp: Math.floor(Date.now() / 1000) + DAY,
      id: user.id,
      type: 'auth',
      refreshable: true,
      sid: user.sid,
    },
    user.token_key + serverSecret,
  );
}
const derived = (master: string) =>
  createHmac('sha256', master).update('gatehouse:auth').digest('base64url');

describe('the signing secret is not in the database (SQLite)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });
  const start = async (env: Record<string, string> = {}) => {
    const t = await startTestServer({ db: 'sqlite', env });
    cleanups.push(() => t.close());
    return t;
  };
  const backupOf = async (t: TestServer) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-copy-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'copy.db');
    await backupDatabase(t.config, file);
    return file;
  };

  it('a copy of the database alone cannot produce a token the server accepts', async () => {
    const t = await start();
    const member = await t.verifiedUser();
    const copy = new SQLite(await backupOf(t), { readonly: true });
    const settings = copy.prepare<[], { value: string }>('SELECT value FROM settings').all();
    const row = copy
      .prepare<[string], { id: string; token_key: string }>(
        'SELECT id, token_key FROM users WHERE id = ?',
      )
      .get(member.id)!;
    copy.close();
    // Sessions are in the copy too: the forger picks a live one.
    const forged = { ...row, sid: jwtPayload(member.token).sid as string };

    // Everything in the copy, as a secret or as the master a secret is derived from.
    const candidates = ['', ...settings.flatMap(({ value }) => [value, derived(value)])];
    for (const candidate of candidates) {
      const res = await t.post(PATHS.refresh, {}, forge(forged, candidate));
      expect(res.status, `forged with ${JSON.stringify(candidate)} from the copy`).toBe(401);
    }
    // The same forgery with the secret file succeeds: the method is right, the copy lacks the key.
    const secret = readFileSync(path.join(t.dataDir, 'secret.key'), 'utf8').trim();
    expect((await t.post(PATHS.refresh, {}, forge(forged, derived(secret)))).status).toBe(200);
  });

  it('the data directory is 0700; the database, its WAL, the secret file and backups are 0600', async () => {
    const previous = process.umask(0o022);
    try {
      const parent = mkdtempSync(path.join(os.tmpdir(), 'gh-modes-'));
      cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
      const dataDir = path.join(parent, 'data');
      const t = await start({ DATA_DIR: dataDir });
      await t.verifiedUser();
      const backup = await backupOf(t);
      expect(modeOf(dataDir).toString(8)).toBe('700');
      for (const name of ['gatehouse.db', 'gatehouse.db-wal', 'gatehouse.db-shm', 'secret.key']) {
        expect(modeOf(path.join(dataDir, name)).toString(8), name).toBe('600');
      }
      expect(modeOf(backup).toString(8), 'backup').toBe('600');
    } finally {
      process.umask(previous);
    }
  });

  it('an upgrade removes the token secrets an older version kept in the settings table', async () => {
    // A database as the last version that kept secrets left it: migrated up to 0002, with them.
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gh-upgrade-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const old = openDatabase({ dataDir, databaseUrl: undefined });
    await migrateTo(old.db, '0002_sessions_and_security_events');
    for (const type of ['auth', 'verification', 'passwordReset']) {
      await old.db
        .insertInto('settings')
        .values({ key: `token_secret.${type}`, value: 's' })
        .execute();
    }
    await old.close();
    await start({ DATA_DIR: dataDir });
    const db = new SQLite(path.join(dataDir, 'gatehouse.db'), { readonly: true });
    const left = db.prepare("SELECT key FROM settings WHERE key LIKE 'token_secret%'").all();
    db.close();
    expect(left).toEqual([]);
  });
});
