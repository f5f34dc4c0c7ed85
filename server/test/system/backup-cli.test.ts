import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmCli as cli } from '../support/cli.js';
import { sdkClient } from '../support/sdk.js';
import { APP_URL, startTestServer } from '../support/server.js';

/** `npm run --silent cli -- backup …` as an operator types it: usage, errors, overwriting. */

describe('the backup command', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-backup-'));
  const env = { DATA_DIR: path.join(dir, 'data'), APP_URL: 'http://app.test' };
  beforeAll(async () => {
    // Creates the database.
    const made = await cli(['initial-invite', '--create'], env);
    expect(made.code, made.stderr).toBe(0);
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('without a file prints its usage (not "Unknown command") and exits 2', async () => {
    for (const args of [['backup'], ['backup', '--force'], ['backup', 'a.db', 'b.db']]) {
      const res = await cli(args, env);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr, args.join(' ')).toContain(
        'Usage: npm run --silent cli -- backup FILE [--force]',
      );
      expect(res.stderr).not.toContain('Unknown command');
    }
  }, 60_000);

  it('into a folder that does not exist says so, without a stack or TypeError', async () => {
    const res = await cli(['backup', '/nonexistent-gh-folder/x.db'], env);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `Database: ${env.DATA_DIR}/gatehouse.db\nThe folder /nonexistent-gh-folder does not exist.\n`,
    );
  }, 60_000);

  it('refuses to overwrite an existing file unless --force is given', async () => {
    const target = path.join(dir, 'backup.db');
    writeFileSync(target, 'precious');
    const refused = await cli(['backup', target], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`\n${target} already exists. Add --force to replace it.\n`);
    expect(readFileSync(target, 'utf8')).toBe('precious');

    const forced = await cli(['backup', target, '--force'], env);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout.trim()).toBe(`Backed up to ${target}`);
    expect(readFileSync(target).subarray(0, 15).toString()).toBe('SQLite format 3');
    expect((statSync(target).mode & 0o777).toString(8)).toBe('600');
  }, 60_000);

  it('a fresh file is written, and a folder as the target is refused', async () => {
    const target = path.join(dir, 'fresh.db');
    const res = await cli(['backup', target], env);
    expect(res.code, res.stderr).toBe(0);
    expect(readFileSync(target).subarray(0, 15).toString()).toBe('SQLite format 3');
    const folder = await cli(['backup', dir], env);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toContain(`${dir} is a folder`);
  }, 60_000);
});

/**
 * On SQLite the members' files live in DATA_DIR/files, beside the database: a backup carries them
 * (in its member_files table) and a restore puts them back, with the database they belong to.
 */
describe("backup and restore carry the members' files (SQLite)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gh-backup-files-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an avatar in the backup comes back with the restore; the files there were are kept aside', async () => {
    const t = await startTestServer({ db: 'sqlite' });
    try {
      const env = { DATA_DIR: t.dataDir, APP_URL };
      const member = await t.verifiedUser();
      const pb = sdkClient(t.url, member.token, member.record);
      const png = await sharp({
        create: { width: 30, height: 30, channels: 3, background: { r: 1, g: 2, b: 3 } },
      })
        .png()
        .toBuffer();
      const record = await pb
        .collection('users')
        .update(member.id, { avatar: new File([png], 'kept.png', { type: 'image/png' }) });
      const served = async (client: typeof pb, name: string) => {
        const token = await client.files.getToken();
        const res = await fetch(client.files.getURL({ ...record, avatar: name }, name, { token }));
        return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
      };
      const before = await served(pb, record.avatar);
      expect(before.status).toBe(200);

      const backup = path.join(dir, 'with-files.db');
      const made = await cli(['backup', backup], env);
      expect(made.code, made.stderr).toBe(0);
      const copy = new SQLite(backup, { readonly: true });
      const rows = copy.prepare('SELECT user_id, name, variant FROM member_files').all();
      copy.close();
      expect(rows).toEqual([{ user_id: member.id, name: record.avatar, variant: '' }]);
      expect((statSync(backup).mode & 0o777).toString(8)).toBe('600');

      // After the backup the member replaces the avatar: the old file is deleted.
      const replaced = await pb
        .collection('users')
        .update(member.id, { avatar: new File([png], 'newer.png', { type: 'image/png' }) });
      expect((await served(pb, record.avatar)).status).toBe(404);

      await t.stop();
      const restored = await cli(['restore', backup], env);
      expect(restored.code, restored.stderr).toBe(0);
      const aside = readdirSync(t.dataDir).filter((f) => f.startsWith('files.before-restore-'));
      expect(aside).toHaveLength(1);
      expect(existsSync(path.join(t.dataDir, aside[0]!, 'users', member.id, replaced.avatar))).toBe(
        true,
      );
      expect((statSync(path.join(t.dataDir, 'files')).mode & 0o777).toString(8)).toBe('700');
      await t.start();

      // The restore ended every session: sign in again, and the backed-up avatar is there.
      const again = sdkClient(t.url);
      await again.collection('users').authWithPassword(member.email, member.password);
      expect(again.authStore.record?.avatar).toBe(record.avatar);
      const after = await served(again, record.avatar);
      expect(after.status).toBe(200);
      expect(after.bytes).toEqual(before.bytes);
      // In the live database the table is empty again: on SQLite the folder is where files are.
      const live = new SQLite(path.join(t.dataDir, 'gatehouse.db'), { readonly: true });
      expect(live.prepare('SELECT count(*) AS n FROM member_files').get()).toEqual({ n: 0 });
      live.close();
    } finally {
      await t.close();
    }
  }, 120_000);
});
