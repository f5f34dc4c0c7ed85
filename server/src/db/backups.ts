import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { type Config, ConfigError } from '../config.js';
import { createPrivateFile, ensurePrivateDir, restrictFile } from '../tools/private-files.js';
import { newSecret } from '../tools/random.js';
import { DATABASE_FILE, openDatabase } from './connect.js';
import { FILES_DIR, FolderFiles } from './member-files.js';
import { migrateToLatest } from './migrations/index.js';
import { checkPgArchive, otherConnections, pgDump, pgRestore, PgToolError } from './pg-tools.js';

/**
 * Backups and restores of the whole database, for the CLI (`backup`, `restore`: docs/decisions/0038)
 * and the backups API (backups/): SQLite's online backup or pg_dump, and back.
 */

/**
 * A consistent copy of the database while servers run: SQLite's online backup, or on PostgreSQL
 * `pg_dump -Fc` (one snapshot of the whole database; docs/decisions/0038). On SQLite the members'
 * files, which live beside the database, go into the copy too (packFiles).
 */
export async function backupDatabase(
  config: Config,
  target: string,
  { force = false }: { force?: boolean } = {},
): Promise<void> {
  const file = path.join(config.dataDir, DATABASE_FILE);
  if (!config.databaseUrl && !fs.existsSync(file))
    throw new ConfigError([`no database at ${file}`]);
  const folder = path.dirname(target);
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    throw new BackupError(`The folder ${folder} does not exist.`);
  }
  const existing = fs.statSync(target, { throwIfNoEntry: false });
  if (existing?.isDirectory()) {
    const example = config.databaseUrl ? 'gatehouse.dump' : 'gatehouse.db';
    throw new BackupError(`${target} is a folder: name the backup file, e.g. ${target}/${example}`);
  }
  if (existing && !force) {
    throw new BackupError(`${target} already exists. Add --force to replace it.`);
  }
  if (existing) fs.rmSync(target);
  // The copy holds everything the database does: only its owner may read it (0600).
  createPrivateFile(target);
  if (config.databaseUrl) {
    try {
      await pgDump(config.databaseUrl, target);
    } catch (error) {
      fs.rmSync(target, { force: true });
      if (error instanceof PgToolError) throw new BackupError(error.message);
      throw error;
    }
    restrictFile(target);
    return;
  }
  const sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    await sqlite.backup(target);
    restrictFile(target);
  } finally {
    sqlite.close();
  }
  await packFiles(target, path.join(config.dataDir, FILES_DIR));
}

/** Whether a SQLite database has a table (older backups lack the newer ones). */
function hasTable(sqlite: SQLite.Database, table: string): boolean {
  return !!sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(table);
}

/**
 * On SQLite the members' files live in DATA_DIR/files, not in the database; a backup carries them
 * in its `member_files` table (empty in a running SQLite database; PostgreSQL keeps them there
 * anyway), so one file holds everything and a restore puts them back (unpackFiles). Only the
 * files the copied records name: thumbs are made again when asked for. A file its member replaced
 * between the copy of the database and this step is gone, and missing from the backup.
 */
async function packFiles(target: string, dir: string): Promise<void> {
  const backup = new SQLite(target, { fileMustExist: true });
  try {
    if (!hasTable(backup, 'member_files')) return;
    const named = backup
      .prepare<[], { id: string; avatar: string }>(
        "SELECT id, avatar FROM users WHERE avatar <> ''",
      )
      .all();
    const insert = backup.prepare(
      "INSERT OR REPLACE INTO member_files (user_id, name, variant, data, created) VALUES (?, ?, '', ?, ?)",
    );
    const files = new FolderFiles(dir);
    const now = new Date().toISOString().replace('T', ' ');
    for (const { id, avatar } of named) {
      const data = await files.get(id, avatar, '');
      if (data) insert.run(id, avatar, data, now);
    }
  } finally {
    backup.close();
  }
  restrictFile(target);
}

/**
 * Writes the files a backup carries (packFiles) into the folder `dir` (0700, files 0600) and
 * empties the restored database's `member_files`: on SQLite the folder is where they are read.
 */
async function unpackFiles(restored: SQLite.Database, dir: string): Promise<void> {
  if (!hasTable(restored, 'member_files')) return;
  const files = new FolderFiles(dir);
  const rows = restored
    .prepare<[], { user_id: string; name: string; variant: string; data: Buffer }>(
      'SELECT user_id, name, variant, data FROM member_files',
    )
    .iterate();
  for (const row of rows) await files.put(row.user_id, row.name, row.variant, row.data);
  restored.prepare('DELETE FROM member_files').run();
}

/** Why a backup did not happen (printed as it is). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** Why a restore did not happen (printed as it is). */
export class RestoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestoreError';
  }
}

/**
 * Replaces the SQLite database with a backup, with the server stopped:
 *  1. refuses while any process has the database open (a running server holds a shared lock on
 *     it, so an exclusive lock with no wait fails);
 *  2. checks the backup is a sound Gatehouse database (integrity_check, the users table);
 *  3. keeps the current database as `gatehouse.db.before-restore-<timestamp>`;
 *  4. copies the backup in (0600) and gives every user a new tokenKey, so every token issued
 *     before the restore is refused, including those ended between the backup and now;
 *  5. puts the members' files the backup carries in DATA_DIR/files, keeping the folder there was
 *     as `files.before-restore-<timestamp>`.
 * Returns the path the previous database was kept at (undefined when there was none).
 */
export async function restoreDatabase(config: Config, source: string): Promise<string | undefined> {
  if (config.databaseUrl) return restorePostgres(config, config.databaseUrl, source);
  checkBackup(source);
  ensurePrivateDir(config.dataDir);
  const file = path.join(config.dataDir, DATABASE_FILE);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let keptAt: string | undefined;
  if (fs.existsSync(file)) {
    const current = new SQLite(file, { fileMustExist: true });
    try {
      current.pragma('busy_timeout = 0');
      current.pragma('locking_mode = EXCLUSIVE');
      try {
        current.exec('BEGIN EXCLUSIVE');
        current.exec('COMMIT');
      } catch {
        throw new RestoreError(
          `${file} is in use: stop the server (and any other process using ${config.dataDir}) ` +
            'before restoring',
        );
      }
      // Everything committed into the main file, so the file alone is the whole database.
      current.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      current.close();
    }
    keptAt = `${file}.before-restore-${stamp}`;
    fs.renameSync(file, keptAt);
    restrictFile(keptAt);
  }
  // A WAL left beside the old file must never be replayed into the restored one.
  for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });

  const incoming = `${file}.restoring`;
  const filesDir = path.join(config.dataDir, FILES_DIR);
  const incomingFiles = `${filesDir}.restoring`;
  await prepareRestoredCopy(source, incoming, incomingFiles);
  fs.renameSync(incoming, file);
  swapFiles(filesDir, incomingFiles, stamp);
  return keptAt;
}

/**
 * The backup `source` made ready to be the database: copied to `incoming` (0600, no WAL beside
 * it), every user given a new tokenKey (every token issued before the restore is refused, those
 * ended between the backup and now included), and the members' files it carries written into the
 * folder `incomingFiles` (made afresh).
 */
async function prepareRestoredCopy(
  source: string,
  incoming: string,
  incomingFiles: string,
): Promise<void> {
  fs.rmSync(incoming, { force: true });
  const backup = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    createPrivateFile(incoming);
    await backup.backup(incoming);
  } finally {
    backup.close();
  }
  fs.rmSync(incomingFiles, { recursive: true, force: true });
  const restored = new SQLite(incoming);
  try {
    const users = restored.prepare<[], { id: string }>('SELECT id FROM users').all();
    const rotate = restored.prepare('UPDATE users SET token_key = ? WHERE id = ?');
    restored.transaction(() => {
      for (const { id } of users) rotate.run(newSecret(), id);
    })();
    await unpackFiles(restored, incomingFiles);
  } finally {
    restored.close();
  }
  for (const suffix of ['-wal', '-shm', '-journal']) fs.rmSync(incoming + suffix, { force: true });
  restrictFile(incoming);
}

/** The files go with the database they belong to: the current ones are kept beside the old one. */
function swapFiles(filesDir: string, incomingFiles: string, stamp: string): void {
  if (fs.existsSync(filesDir)) fs.renameSync(filesDir, `${filesDir}.before-restore-${stamp}`);
  if (fs.existsSync(incomingFiles)) fs.renameSync(incomingFiles, filesDir);
}

/**
 * A restore while this server runs and serves (POST /api/backups/{key}/restore), on SQLite: the
 * backup is made ready beside the database (prepareRestoredCopy, then migrated to this version's
 * schema), and then, inside `hold` (the server's one write connection held, so no write of its own
 * runs meanwhile), the current database is kept as `gatehouse.db.before-restore-<timestamp>` and
 * the ready copy is written over it with SQLite's online backup, into the open database: the
 * server's connections see the restored data at their next statement, as after any commit, and
 * nothing is closed or opened again. The members' files follow (swapFiles). Returns where the
 * previous database was kept.
 */
export async function restoreSqliteWhileServing(
  config: Config,
  source: string,
  hold: (work: () => Promise<void>) => Promise<void>,
): Promise<string> {
  checkBackup(source);
  const file = path.join(config.dataDir, DATABASE_FILE);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const workDir = path.join(config.dataDir, `.restoring-${stamp}`);
  const filesDir = path.join(config.dataDir, FILES_DIR);
  const incomingFiles = `${filesDir}.restoring`;
  ensurePrivateDir(workDir);
  try {
    const incoming = path.join(workDir, DATABASE_FILE);
    await prepareRestoredCopy(source, incoming, incomingFiles);
    const ready = openDatabase({ dataDir: workDir, databaseUrl: undefined });
    try {
      await migrateToLatest(ready.db);
    } finally {
      await ready.close();
    }
    const keptAt = `${file}.before-restore-${stamp}`;
    await hold(async () => {
      const current = new SQLite(file, { readonly: true, fileMustExist: true });
      try {
        await current.backup(keptAt);
      } finally {
        current.close();
      }
      restrictFile(keptAt);
      const copy = new SQLite(incoming, { readonly: true, fileMustExist: true });
      try {
        // One step for every page: the database changes from one state to the other at once.
        await copy.backup(file, { progress: () => 0x7fffffff });
      } finally {
        copy.close();
      }
    });
    swapFiles(filesDir, incomingFiles, stamp);
    return keptAt;
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
    fs.rmSync(incomingFiles, { recursive: true, force: true });
  }
}

/**
 * The same steps on PostgreSQL, with pg_dump and pg_restore (docs/decisions/0038): refuses while
 * any other connection to the database is open (a running server keeps some; `whileServing`: the
 * running server restores through its API, and others wait for pg_restore's locks), checks the archive,
 * keeps the current database as `DATA_DIR/gatehouse.before-restore-<timestamp>.dump`, restores in
 * one transaction and gives every user a new tokenKey.
 */
export async function restorePostgres(
  config: Config,
  databaseUrl: string,
  source: string,
  { whileServing = false }: { whileServing?: boolean } = {},
): Promise<string> {
  if (!fs.existsSync(source)) throw new RestoreError(`no file at ${source}`);
  try {
    await checkPgArchive(source);
    const others = whileServing ? 0 : await otherConnections(databaseUrl);
    if (others > 0) {
      throw new RestoreError(
        `the database is in use (${others} other connection${others === 1 ? '' : 's'}): stop ` +
          'every server (and any other client of the database) before restoring',
      );
    }
    ensurePrivateDir(config.dataDir);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const keptAt = path.join(config.dataDir, `gatehouse.before-restore-${stamp}.dump`);
    createPrivateFile(keptAt);
    await pgDump(databaseUrl, keptAt);
    restrictFile(keptAt);
    await pgRestore(databaseUrl, source);
    const database = openDatabase(config);
    try {
      await database.db.transaction().execute(async (trx) => {
        const users = await trx.selectFrom('users').select('id').execute();
        for (const { id } of users) {
          await trx
            .updateTable('users')
            .set({ token_key: newSecret() })
            .where('id', '=', id)
            .execute();
        }
      });
    } finally {
      await database.close();
    }
    return keptAt;
  } catch (error) {
    if (error instanceof PgToolError) throw new RestoreError(error.message);
    throw error;
  }
}

/** Refuses anything but a sound SQLite database with Gatehouse's users table. */
export function checkBackup(source: string): void {
  if (!fs.existsSync(source)) throw new RestoreError(`no file at ${source}`);
  let sqlite: SQLite.Database | undefined;
  try {
    sqlite = new SQLite(source, { readonly: true, fileMustExist: true });
    const integrity = sqlite.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new RestoreError(`${source} is damaged: ${String(integrity)}`);
    const users = sqlite
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'users'")
      .get();
    if (!users) throw new RestoreError(`${source} is not a Gatehouse database (no users table)`);
  } catch (error) {
    if (error instanceof RestoreError) throw error;
    throw new RestoreError(`${source} is not a SQLite database (${(error as Error).message})`);
  } finally {
    sqlite?.close();
  }
}
