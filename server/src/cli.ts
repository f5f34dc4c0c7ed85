import { type Config, ConfigError, loadConfig, withEnvFile } from './config.js';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE, openDatabase } from './db/connect.js';
import { FILES_DIR, FolderFiles } from './db/member-files.js';
import { migrateToLatest } from './db/migrations/index.js';
import { checkPgArchive, otherConnections, pgDump, pgRestore, PgToolError } from './db/pg-tools.js';
import { bootstrapInviteLink, InitialUserExistsError } from './invites/service.js';
import { commandError, UsageError, USERS_USAGE, usersCommand } from './admin/commands.js';
import { WAY_IN_KINDS } from './ways-in-kinds.js';
import { createPrivateFile, ensurePrivateDir, restrictFile } from './tools/private-files.js';
import { newSecret } from './tools/random.js';

/** The sign-up link for the initial user (reusing the unused bootstrap code, or making one). */
export async function initialInviteLink(config: Config): Promise<string> {
  const database = openDatabase(config);
  try {
    await migrateToLatest(database.db);
    return await bootstrapInviteLink(database.db, config.appUrl);
  } finally {
    await database.close();
  }
}

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
  fs.rmSync(incoming, { force: true });
  const backup = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    createPrivateFile(incoming);
    await backup.backup(incoming);
  } finally {
    backup.close();
  }
  const filesDir = path.join(config.dataDir, FILES_DIR);
  const incomingFiles = `${filesDir}.restoring`;
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
  fs.renameSync(incoming, file);
  // The files go with the database they belong to: the current ones are kept beside the old one.
  if (fs.existsSync(filesDir)) fs.renameSync(filesDir, `${filesDir}.before-restore-${stamp}`);
  if (fs.existsSync(incomingFiles)) fs.renameSync(incomingFiles, filesDir);
  return keptAt;
}

/**
 * The same steps on PostgreSQL, with pg_dump and pg_restore (docs/decisions/0038): refuses while
 * any other connection to the database is open (a running server keeps some), checks the archive,
 * keeps the current database as `DATA_DIR/gatehouse.before-restore-<timestamp>.dump`, restores in
 * one transaction and gives every user a new tokenKey.
 */
async function restorePostgres(
  config: Config,
  databaseUrl: string,
  source: string,
): Promise<string> {
  if (!fs.existsSync(source)) throw new RestoreError(`no file at ${source}`);
  try {
    await checkPgArchive(source);
    const others = await otherConnections(databaseUrl);
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
function checkBackup(source: string): void {
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

const USAGE = `Usage: npm run --silent cli -- <command>

Commands:
  initial-invite   Print the sign-up link that creates the initial user (one line on stdout).
                   Fails once the initial user exists.
  backup <file> [--force]
                   Copy the database to <file>, safely while servers run (on PostgreSQL with
                   pg_dump -Fc; on SQLite the members' files go into it too). Refuses to
                   replace an existing <file> unless --force is given.
  restore <file>   Replace the database with the backup <file> (every server stopped; on
                   PostgreSQL with pg_restore). Keeps the current one in DATA_DIR as
                   gatehouse.db.before-restore-<time>, and the files folder as
                   files.before-restore-<time> (PostgreSQL: gatehouse.before-restore-
                   <time>.dump); ends every session.
${USERS_USAGE}`;

async function run(args: string[]): Promise<number> {
  const [command] = args;
  if (command === 'initial-invite') {
    const link = await initialInviteLink(loadConfig(withEnvFile()));
    process.stdout.write(`${link}\n`);
    return 0;
  }
  if (command === 'backup') {
    const force = args.includes('--force');
    const files = args.slice(1).filter((arg) => arg !== '--force');
    if (files.length !== 1 || files[0]!.startsWith('-')) {
      process.stderr.write(
        `Usage: npm run --silent cli -- backup FILE [--force]\n` +
          '  Copies the database to FILE; --force replaces an existing FILE.\n',
      );
      return 2;
    }
    const target = path.resolve(files[0]!);
    await backupDatabase(loadConfig(withEnvFile()), target, { force });
    process.stdout.write(`Backed up to ${target}\n`);
    return 0;
  }
  if (command === 'restore' && args.length !== 2) {
    process.stderr.write(
      'Usage: npm run --silent cli -- restore FILE\n' +
        '  Replaces the database with the backup FILE (every server stopped).\n',
    );
    return 2;
  }
  if (command === 'restore' && args[1]) {
    const source = path.resolve(args[1]);
    const keptAt = await restoreDatabase(loadConfig(withEnvFile()), source);
    process.stdout.write(
      `Restored from ${source}${keptAt ? `; the previous database is at ${keptAt}` : ''}. ` +
        'Every session has ended: members sign in again.\n',
    );
    return 0;
  }
  if (command === 'users') {
    try {
      await usersCommand(loadConfig(process.env), args.slice(1), process.stdout, WAY_IN_KINDS);
      return 0;
    } catch (error) {
      if (error instanceof UsageError) {
        process.stderr.write(`${error.message}\n\n${USAGE}`);
        return 2;
      }
      const message = commandError(error, args.slice(1));
      if (!message) throw error;
      process.stderr.write(`${message}\n`);
      return 1;
    }
  }
  if (command === undefined || command === 'help' || command === '--help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  process.stderr.write(`Unknown command "${command}".\n\n${USAGE}`);
  return 2;
}

const isMain =
  import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('cli.ts');
if (isMain) {
  run(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      const known =
        error instanceof ConfigError ||
        error instanceof InitialUserExistsError ||
        error instanceof BackupError ||
        error instanceof RestoreError;
      process.stderr.write(`${known ? (error as Error).message : String(error)}\n`);
      process.exit(1);
    },
  );
}
