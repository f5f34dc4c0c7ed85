import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { CONFIRM_IT_IS_YOU, staleSession } from '../support/reauth.js';
import { changesAfterBackup, expectBackedUpData, modeOf } from '../support/restore-drill.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';

/**
 * Backups through the official SDK (pb.backups): PocketBase's ZIP archives in DATA_DIR/backups,
 * made, listed, downloaded with a file token, uploaded, deleted, and restored into the running
 * server, which serves the restored data at once (docs/decisions/0054).
 */

const NOT_SUPERUSER = 'The authorized record is not allowed to perform this action.';
const NOT_ALLOWED = 'Insufficient permissions to access the resource.';
const VALIDATE = 'An error occurred while validating the submitted data.';

/** The backup actions in the whole security log, newest first, as an operator reads them. */
async function backupEvents(t: TestServer, token: string, member: string) {
  const res = await t.get(`/api/admin/security-events?member=${member}&perPage=100`, token);
  expect(res.status).toBe(200);
  return (
    res.body.items as Array<{ type: string; actor: { id: string } | null; detail: object }>
  ).filter((e) => e.type.startsWith('admin_backup_'));
}

/** The names of the entries of a ZIP archive, as the system's unzip lists them. */
function entriesOf(zip: string): string[] {
  return execFileSync('unzip', ['-Z1', zip]).toString().trim().split('\n');
}

describe.each(DATABASES)('backups on %s', (db) => {
  let t: TestServer;
  let operator: User;
  let pb: PocketBase;
  const entry = db === 'sqlite' ? 'gatehouse.db' : 'gatehouse.dump';
  const backupsDir = () => path.join(t.dataDir, 'backups');

  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
    pb = sdkClient(t.url, operator.token);
  });
  afterAll(() => t?.close());

  it('guests get 401 and members 403 with PocketBase’s messages; a download needs an operator’s file token', async () => {
    const member = await t.verifiedUser();
    const guest = sdkClient(t.url);
    const asMember = sdkClient(t.url, member.token);
    const archive = new File([Buffer.from('PK\u0003\u0004')], 'x.zip', { type: 'application/zip' });
    for (const call of [
      (c: PocketBase) => c.backups.getFullList(),
      (c: PocketBase) => c.backups.create(''),
      (c: PocketBase) => c.backups.upload({ file: archive }),
      (c: PocketBase) => c.backups.delete('nothing.zip'),
      (c: PocketBase) => c.backups.restore('nothing.zip'),
    ]) {
      expect((await sdkError(call(guest))).response).toEqual({
        data: {},
        message: MSG.needsAuth,
        status: 401,
      });
      expect((await sdkError(call(asMember))).response).toEqual({
        data: {},
        message: NOT_SUPERUSER,
        status: 403,
      });
    }
    await pb.backups.create('for_members.zip');
    for (const token of ['', 'not-a-token', await asMember.files.getToken(), operator.token]) {
      const res = await fetch(pb.backups.getDownloadURL(token, 'for_members.zip'));
      expect(res.status, token).toBe(403);
      expect(await res.json()).toEqual({ data: {}, message: NOT_ALLOWED, status: 403 });
    }
    await pb.backups.delete('for_members.zip');
  });

  it('an operator makes, lists, downloads, uploads and deletes backups: ZIP archives of the database, private on disk', async () => {
    expect(await pb.backups.create('')).toBe(true);
    await pb.backups.create('before_the_move.zip');
    const list = await pb.backups.getFullList();
    expect(list.map((b) => b.key)).toContain('before_the_move.zip');
    const generated = list.find((b) => b.key.startsWith('pb_backup_'))!;
    expect(generated.key).toMatch(/^pb_backup_gatehouse_\d{14}\.zip$/);
    for (const b of list) {
      expect(Object.keys(b)).toEqual(['key', 'size', 'modified']);
      expect(b.size).toBeGreaterThan(100);
      expect(b.modified).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(modeOf(backupsDir())).toBe('700');
    expect(modeOf(path.join(backupsDir(), 'before_the_move.zip'))).toBe('600');

    // PocketBase's name rules.
    const taken = await sdkError(pb.backups.create('before_the_move.zip'));
    expect(taken.response).toEqual({
      data: {
        name: {
          code: 'validation_backup_name_exists',
          message: 'The backup file name is invalid or already exists.',
        },
      },
      message: VALIDATE,
      status: 400,
    });
    const badName = await sdkError(pb.backups.create('Before The Move.zip'));
    expect(badName.response.data).toEqual({
      name: { code: 'validation_match_invalid', message: 'Must be in a valid format.' },
    });

    // Downloaded with a file token, as the SDK builds the link.
    const url = pb.backups.getDownloadURL(await pb.files.getToken(), 'before_the_move.zip');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="before_the_move.zip"',
    );
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.equals(fs.readFileSync(path.join(backupsDir(), 'before_the_move.zip')))).toBe(
      true,
    );
    const downloaded = path.join(t.dataDir, 'downloaded.zip');
    fs.writeFileSync(downloaded, bytes);
    execFileSync('unzip', ['-tq', downloaded]);
    expect(entriesOf(downloaded)).toEqual([entry]);
    const missing = await fetch(pb.backups.getDownloadURL(await pb.files.getToken(), 'gone.zip'));
    expect(missing.status).toBe(404);

    // Uploaded under its own name, which must be free; a file that is no ZIP archive is refused.
    await pb.backups.upload({
      file: new File([bytes], 'copied_in.zip', { type: 'application/zip' }),
    });
    expect((await pb.backups.getFullList()).map((b) => b.key)).toContain('copied_in.zip');
    expect(
      fs.readFileSync(path.join(backupsDir(), 'copied_in.zip')).equals(bytes),
      'byte for byte',
    ).toBe(true);
    expect(modeOf(path.join(backupsDir(), 'copied_in.zip'))).toBe('600');
    const again = await sdkError(
      pb.backups.upload({ file: new File([bytes], 'copied_in.zip', { type: 'application/zip' }) }),
    );
    expect(again.response).toEqual({
      data: {
        file: {
          code: 'validation_backup_name_exists',
          message: 'Backup file with the specified name already exists.',
        },
      },
      message: VALIDATE,
      status: 400,
    });
    const notZip = await sdkError(
      pb.backups.upload({
        file: new File(['just text'], 'notes.zip', { type: 'application/zip' }),
      }),
    );
    expect(notZip.response.data).toEqual({
      file: {
        code: 'validation_invalid_mime_type',
        message: '"notes.zip" mime type must be one of: application/zip.',
      },
    });
    const none = await sdkError(pb.backups.upload({}));
    expect(none.response.data).toEqual({
      file: { code: 'validation_required', message: 'Cannot be blank.' },
    });
    // Nothing refused was kept, not even as a temporary file.
    expect(fs.readdirSync(backupsDir()).sort()).toEqual(
      ['before_the_move.zip', 'copied_in.zip', generated.key].sort(),
    );

    // Deleted once; a key never leads out of the folder.
    expect(await pb.backups.delete('copied_in.zip')).toBe(true);
    const gone = await sdkError(pb.backups.delete('copied_in.zip'));
    expect(gone.response).toEqual({
      data: {},
      message: 'Invalid or already deleted backup file.',
      status: 400,
    });
    const outside = await sdkError(pb.backups.delete('../gatehouse.db'));
    expect(outside.status).toBe(400);
    if (db === 'sqlite') expect(fs.existsSync(path.join(t.dataDir, 'gatehouse.db'))).toBe(true);
    await pb.backups.delete(generated.key);
  });

  it("each backup made, uploaded, downloaded or deleted is in the operator's security log with its name; a refused one is not", async () => {
    const before = (await backupEvents(t, operator.token, operator.id)).length;
    await pb.backups.create('logged.zip');
    await sdkError(pb.backups.create('logged.zip'));
    const download = await fetch(
      pb.backups.getDownloadURL(await pb.files.getToken(), 'logged.zip'),
    );
    const bytes = Buffer.from(await download.arrayBuffer());
    await fetch(pb.backups.getDownloadURL('not-a-token', 'logged.zip'));
    await pb.backups.upload({ file: new File([bytes], 'logged_copy.zip') });
    await pb.backups.delete('logged_copy.zip');
    await sdkError(pb.backups.delete('logged_copy.zip'));
    await pb.backups.delete('logged.zip');
    const events = await backupEvents(t, operator.token, operator.id);
    expect(events.slice(0, events.length - before).reverse()).toEqual([
      expect.objectContaining({
        type: 'admin_backup_created',
        actor: expect.objectContaining({ id: operator.id }),
        detail: { actor: operator.id, backup: 'logged.zip' },
      }),
      expect.objectContaining({
        type: 'admin_backup_downloaded',
        detail: { actor: operator.id, backup: 'logged.zip' },
      }),
      expect.objectContaining({
        type: 'admin_backup_uploaded',
        detail: { actor: operator.id, backup: 'logged_copy.zip' },
      }),
      expect.objectContaining({
        type: 'admin_backup_deleted',
        detail: { actor: operator.id, backup: 'logged_copy.zip' },
      }),
      expect.objectContaining({
        type: 'admin_backup_deleted',
        detail: { actor: operator.id, backup: 'logged.zip' },
      }),
    ]);
    // A generated name is the one recorded.
    await pb.backups.create('');
    const [made] = await backupEvents(t, operator.token, operator.id);
    const key = (made!.detail as { backup: string }).backup;
    expect(key).toMatch(/^pb_backup_gatehouse_\d{14}\.zip$/);
    await pb.backups.delete(key);
  });

  it('deleting, uploading, downloading and restoring need a fresh session ("Confirm it\'s you")', async () => {
    await pb.backups.create('fresh_only.zip');
    const token = await t.tokenFor(operator);
    const stale = sdkClient(t.url, token);
    const fileToken = await stale.files.getToken();
    await staleSession(t, token);
    expect((await stale.backups.getFullList()).map((b) => b.key)).toContain('fresh_only.zip');
    for (const call of [
      stale.backups.delete('fresh_only.zip'),
      stale.backups.restore('fresh_only.zip'),
      stale.backups.upload({ file: new File(['PK'], 'stale.zip') }),
    ]) {
      const refused = await sdkError(call);
      expect(refused.status).toBe(403);
      expect(refused.message).toBe(CONFIRM_IT_IS_YOU);
    }
    const download = await fetch(stale.backups.getDownloadURL(fileToken, 'fresh_only.zip'));
    expect(download.status).toBe(403);
    expect(((await download.json()) as { message: string }).message).toBe(CONFIRM_IT_IS_YOU);
    await pb.backups.delete('fresh_only.zip');
  });

  it('restore drill: the running server restores a backup and serves it at once — data from after the backup is gone, data from before is back, every earlier token refused', async () => {
    const member = await t.verifiedUser();
    const beforeBackup = member.token;
    await pb.backups.create('drill.zip');

    const after = await changesAfterBackup(t, member);
    await pb.settings.update({ gatehouse: { invitesPerMember: 1 } });
    const kept = () =>
      fs
        .readdirSync(t.dataDir)
        .filter((f) => f.startsWith('gatehouse') && f.includes('before-restore'));
    expect(kept()).toEqual([]);

    expect(await pb.backups.restore('drill.zip')).toBe(true);

    // Served again at once, with the backed-up data and no earlier token.
    expect((await t.get(PATHS.health)).status).toBe(200);
    await expectBackedUpData(t, member, after, {
      beforeBackup,
      afterReset: after.afterReset,
      newcomer: after.newcomer.token,
      operator: operator.token,
    });
    // The settings are the backup's too, on this instance without a restart.
    operator.token = await t.tokenFor(operator);
    pb = sdkClient(t.url, operator.token);
    expect((await pb.settings.getAll()).gatehouse.invitesPerMember).toBe(5);
    // The database there was is kept beside it, private.
    expect(kept()).toHaveLength(1);
    expect(kept()[0]).toMatch(
      db === 'sqlite' ? /^gatehouse\.db\.before-restore-/ : /^gatehouse\.before-restore-.*\.dump$/,
    );
    expect(modeOf(path.join(t.dataDir, kept()[0]!))).toBe('600');
    // It keeps serving: a new member joins and signs in.
    const newcomer = await t.verifiedUser();
    expect((await t.login(newcomer.email, newcomer.password)).status).toBe(200);
    // The backup is still there to restore again.
    expect((await pb.backups.getFullList()).map((b) => b.key)).toContain('drill.zip');
    // The restored security log says who restored which backup (its own events end at the backup).
    const [restored] = await backupEvents(t, operator.token, operator.id);
    expect(restored).toMatchObject({
      type: 'admin_backup_restored',
      detail: { actor: operator.id, backup: 'drill.zip' },
    });
  }, 120_000);

  it('a ZIP archive that is not a backup of this database is refused, and nothing changes', async () => {
    const dir = fs.mkdtempSync(path.join(t.dataDir, 'zip-'));
    fs.writeFileSync(path.join(dir, 'readme.txt'), 'not a database');
    execFileSync('zip', ['-q', 'other.zip', 'readme.txt'], { cwd: dir });
    await pb.backups.upload({
      file: new File([fs.readFileSync(path.join(dir, 'other.zip'))], 'other.zip'),
    });
    const refused = await sdkError(pb.backups.restore('other.zip'));
    expect(refused.response).toEqual({
      data: {
        key: {
          code: 'validation_invalid_backup',
          message: `Not a Gatehouse backup: the archive has no ${entry}.`,
        },
      },
      message: 'Failed to restore the backup.',
      status: 400,
    });
    const missing = await sdkError(pb.backups.restore('nothing_here.zip'));
    expect(missing.response).toEqual({
      data: {},
      message: 'Missing or invalid backup file.',
      status: 400,
    });
    expect((await pb.settings.getAll()).meta.appName).toBe('Gatehouse');
  });

  // The schedule's minute comes when it comes: one database is enough (it is the same code).
  it.runIf(db === 'sqlite')(
    "the settings' schedule makes backups on its own and keeps only the newest cronMaxKeep of them",
    async () => {
      const stamp = (key: string) => key.replace(/\D/g, '');
      await pb.backups.create('by_hand.zip');
      const archive = fs.readFileSync(path.join(backupsDir(), 'by_hand.zip'));
      // An older scheduled backup (uploaded here) and one made by hand, which is never removed.
      await pb.backups.upload({
        file: new File([archive], '@auto_pb_backup_gatehouse_20200101000000.zip'),
      });
      await pb.settings.update({ backups: { cron: '* * * * *', cronMaxKeep: 1 } });
      const deadline = Date.now() + 75_000;
      let auto: string[] = [];
      while (Date.now() < deadline) {
        auto = (await pb.backups.getFullList())
          .map((b) => b.key)
          .filter((k) => k.startsWith('@auto_pb_backup_'));
        if (auto.length === 1 && stamp(auto[0]!) !== '20200101000000') break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      await pb.settings.update({ backups: { cron: '' } });
      expect(auto).toHaveLength(1);
      expect(auto[0]).toMatch(/^@auto_pb_backup_gatehouse_\d{14}\.zip$/);
      expect(entriesOf(path.join(backupsDir(), auto[0]!))).toEqual([entry]);
      expect((await pb.backups.getFullList()).map((b) => b.key)).toContain('by_hand.zip');
    },
    100_000,
  );
});
