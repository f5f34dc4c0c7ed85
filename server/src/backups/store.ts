import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../core/context.js';
import { backupDatabase, restorePostgres, restoreSqliteWhileServing } from '../db/backups.js';
import { migrateToLatest } from '../db/migrations/index.js';
import { ensurePrivateDir, restrictFile } from '../tools/private-files.js';
import { formatDate } from '../tools/time.js';
import { extractZipEntry, listZip, writeZip, ZipError } from '../tools/zip.js';

/**
 * The backups, as PocketBase keeps them: ZIP archives in DATA_DIR/backups (0700, files 0600),
 * each named by its key. An archive holds the database as the CLI's backup makes it
 * (db/backups.ts): `gatehouse.db` on SQLite (the members' files inside it), `gatehouse.dump` on
 * PostgreSQL (pg_dump -Fc). On PostgreSQL the folder is the instance's own: a backup is on the
 * instance that made it (docs/operations.md).
 */

export const BACKUPS_DIR = 'backups';

/** The archive's entry that holds the database, per database. */
const ENTRY = { sqlite: 'gatehouse.db', postgres: 'gatehouse.dump' } as const;

/** PocketBase's rule for a name asked for (POST /api/backups). */
export const NAME_RULE = /^[a-z0-9_-]+\.zip$/;

export function backupsDir(ctx: AppContext): string {
  return path.join(ctx.config.dataDir, BACKUPS_DIR);
}

/**
 * The file of a key, or undefined when the key names no file of the folder: a key is a plain name
 * (no folder, not hidden), so no key leads outside it.
 */
export function backupPath(ctx: AppContext, key: string): string | undefined {
  if (!isPlainName(key)) return undefined;
  const file = path.join(backupsDir(ctx), key);
  return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ? file : undefined;
}

/** A name that can be a backup's: no folder, not hidden, no control characters, not too long. */
export function isPlainName(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  return name.length <= 255 && /^[^./\\\u0000-\u001f][^/\\\u0000-\u001f]*$/.test(name);
}

export interface BackupInfo {
  key: string;
  size: number;
  modified: string;
}

/** Every backup, newest first. */
export function listBackups(ctx: AppContext): BackupInfo[] {
  const dir = backupsDir(ctx);
  if (!fs.existsSync(dir)) return [];
  const found: Array<BackupInfo & { at: number }> = [];
  for (const key of fs.readdirSync(dir)) {
    if (!isPlainName(key)) continue;
    const stat = fs.statSync(path.join(dir, key), { throwIfNoEntry: false });
    if (!stat?.isFile()) continue;
    found.push({ key, size: stat.size, modified: formatDate(stat.mtime), at: stat.mtimeMs });
  }
  found.sort((a, b) => b.at - a.at || b.key.localeCompare(a.key));
  return found.map(({ key, size, modified }) => ({ key, size, modified }));
}

/** PocketBase's generated name: `<prefix><app name in snake case>_<UTC yyyyMMddHHmmss>.zip`. */
export function generatedName(ctx: AppContext, prefix: string, at = new Date()): string {
  const app = ctx.settings.appName
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 50);
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${prefix}${app}_${stamp}.zip`;
}

/**
 * Only one backup or restore at a time on an instance (PocketBase's "active backup"): the key
 * under way, or undefined.
 */
let active: string | undefined;

export function activeBackup(): string | undefined {
  return active;
}

/** PocketBase's answer while another backup or restore runs. */
export const BUSY = 'Try again later - another backup/restore process has already been started.';

export class BackupBusyError extends Error {
  constructor() {
    super(BUSY);
    this.name = 'BackupBusyError';
  }
}

async function exclusively<T>(key: string, work: () => Promise<T>): Promise<T> {
  if (active !== undefined) throw new BackupBusyError();
  active = key;
  try {
    return await work();
  } finally {
    active = undefined;
  }
}

/** A scratch folder inside the backups folder (same disk, so a rename is a move), removed after. */
async function withScratch<T>(ctx: AppContext, work: (dir: string) => Promise<T>): Promise<T> {
  ensurePrivateDir(backupsDir(ctx));
  const dir = path.join(backupsDir(ctx), `.work-${randomBytes(6).toString('hex')}`);
  ensurePrivateDir(dir);
  try {
    return await work(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes the backup `key` (replacing one of that name, as PocketBase does) of the database now. */
export async function createBackup(ctx: AppContext, key: string): Promise<void> {
  await exclusively(key, () =>
    withScratch(ctx, async (dir) => {
      const kind = ctx.config.databaseUrl ? 'postgres' : 'sqlite';
      const copy = path.join(dir, ENTRY[kind]);
      await backupDatabase(ctx.config, copy);
      const zip = path.join(dir, 'backup.zip');
      await writeZip(zip, [{ name: ENTRY[kind], path: copy }]);
      restrictFile(zip);
      fs.renameSync(zip, path.join(backupsDir(ctx), key));
    }),
  );
}

/** Why a backup cannot be restored (the API's 400 says it). */
export class NotRestorableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotRestorableError';
  }
}

/** What an archive holds, checked before anything is replaced. */
export function checkArchive(ctx: AppContext, file: string): void {
  const kind = ctx.config.databaseUrl ? 'postgres' : 'sqlite';
  let names: string[];
  try {
    names = listZip(file).map((e) => e.name);
  } catch (error) {
    if (error instanceof ZipError)
      throw new NotRestorableError(`Not a ZIP archive: ${error.message}.`);
    throw error;
  }
  if (!names.includes(ENTRY[kind])) {
    const other = kind === 'sqlite' ? 'postgres' : 'sqlite';
    throw new NotRestorableError(
      names.includes(ENTRY[other])
        ? `The backup is of a ${other === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database; this server uses ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}.`
        : `Not a Gatehouse backup: the archive has no ${ENTRY[kind]}.`,
    );
  }
}

/**
 * Replaces the database with the backup at `file` while the server runs (db/backups.ts): on
 * SQLite written over the open database with the server's write connection held, on PostgreSQL
 * with pg_restore; every session ends (new token keys). Then the schema is brought to this
 * version's and every instance is told (`database-restored`: caches dropped, settings read
 * again). Returns where the database there was is kept.
 */
export async function restoreBackup(ctx: AppContext, key: string, file: string): Promise<string> {
  checkArchive(ctx, file);
  return exclusively(key, () =>
    withScratch(ctx, async (dir) => {
      const kind = ctx.config.databaseUrl ? 'postgres' : 'sqlite';
      const extracted = path.join(dir, ENTRY[kind]);
      try {
        await extractZipEntry(file, ENTRY[kind], extracted);
      } catch (error) {
        if (error instanceof ZipError) throw new NotRestorableError(`${error.message}.`);
        throw error;
      }
      let keptAt: string;
      if (ctx.config.databaseUrl) {
        keptAt = await restorePostgres(ctx.config, ctx.config.databaseUrl, extracted, {
          whileServing: true,
        });
        await migrateToLatest(ctx.db);
      } else {
        keptAt = await restoreSqliteWhileServing(ctx.config, extracted, (work) =>
          ctx.db.connection().execute(() => work()),
        );
      }
      await ctx.settings.reload();
      ctx.events.publish({ type: 'database-restored' });
      return keptAt;
    }),
  );
}
