import { type Config, ConfigError, loadConfig, withEnvFile } from './config.js';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { BackupError, backupDatabase, RestoreError, restoreDatabase } from './db/backups.js';
import { DATABASE_FILE, openDatabase } from './db/connect.js';
import { migrateToLatest } from './db/migrations/index.js';
import { bootstrapInviteLink, InitialUserExistsError } from './invites/service.js';
import {
  commandError,
  readUsersArgs,
  UsageError,
  USERS_USAGE,
  usersCommand,
} from './admin/commands.js';
import { WAY_IN_KINDS } from './ways-in-kinds.js';
import { OIDC_USAGE, oidcCommand, OidcUsageError, readOidcArgs } from './oidc/commands.js';

// The backup and restore behind the commands live in db/backups.ts (the backups API uses them too).
export { BackupError, backupDatabase, RestoreError, restoreDatabase };

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
 * Where the commands' database is, as the line every command prints names it: the SQLite file,
 * or PostgreSQL's host:port/database (never the user or password of DATABASE_URL).
 */
export function databasePlace(config: Pick<Config, 'dataDir' | 'databaseUrl'>): string {
  if (!config.databaseUrl) return path.resolve(config.dataDir, DATABASE_FILE);
  const url = new URL(config.databaseUrl);
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const port = url.port || url.searchParams.get('port') || '5432';
  const name =
    decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username);
  return `PostgreSQL ${host}:${port}/${name}`;
}

/**
 * What is at the commands' database: Gatehouse's (the SQLite file exists, or the PostgreSQL
 * database has Gatehouse's migrations table), an empty PostgreSQL database, or nothing (no
 * SQLite file; no PostgreSQL database of that name, which only its owner can create).
 */
async function findDatabase(config: Config): Promise<'gatehouse' | 'empty' | 'none'> {
  if (!config.databaseUrl) {
    return fs.existsSync(path.resolve(config.dataDir, DATABASE_FILE)) ? 'gatehouse' : 'none';
  }
  const database = openDatabase(config);
  try {
    const { rows } = await sql<{
      found: string | null;
    }>`select to_regclass('kysely_migration') as found`.execute(database.db);
    return rows[0]?.found != null ? 'gatehouse' : 'empty';
  } catch (error) {
    // 3D000: the database named in DATABASE_URL does not exist.
    if ((error as { code?: unknown }).code === '3D000') return 'none';
    throw error;
  } finally {
    await database.close();
  }
}

/**
 * Says on stderr which database the command opens (stdout stays the command's answer), or, when
 * there is none there and `create` is false, says so in one line and answers false: a command
 * never makes an empty database by mistake (a wrong DATA_DIR, a typo in DATABASE_URL). `npm
 * start` creates it at the server's first start; `--create` (createFlag) does it on purpose.
 */
async function useDatabase(
  config: Config,
  { create, createFlag }: { create: boolean; createFlag: boolean },
): Promise<boolean> {
  const place = databasePlace(config);
  const found = await findDatabase(config);
  if (found === 'gatehouse') {
    process.stderr.write(`Database: ${place}\n`);
    return true;
  }
  if (found === 'none' && config.databaseUrl) {
    const name = place.slice(place.lastIndexOf('/') + 1);
    process.stderr.write(
      `No database at ${place}: create it first (createdb ${name}), or check DATABASE_URL.\n`,
    );
    return false;
  }
  if (!create) {
    const where = config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR';
    process.stderr.write(
      `No Gatehouse database at ${place}: check ${where}` +
        (createFlag ? ', or add --create to start a new, empty one.\n' : '.\n'),
    );
    return false;
  }
  process.stderr.write(`Database: ${place} (new)\n`);
  return true;
}

const USAGE = `Usage: npm run --silent cli -- <command>

Each command says on stderr which database it opens: the SQLite file in DATA_DIR, or
PostgreSQL's host:port/database from DATABASE_URL. Where there is none, it stops (exit code 1)
instead of making an empty one: the server makes it at its first start, or --create (initial-invite
and users) on purpose.

Commands:
  initial-invite [--create]
                   Print the sign-up link that creates the initial user (one line on stdout).
                   Fails once the initial user exists. --create: make a new, empty database
                   first when there is none (before the server's first start).
  backup <file> [--force]
                   Copy the database to <file>, safely while servers run (on PostgreSQL with
                   pg_dump -Fc; on SQLite the members' files go into it too). Refuses to
                   replace an existing <file> unless --force is given.
  restore <file>   Replace the database with the backup <file> (every server stopped; on
                   PostgreSQL with pg_restore). Keeps the current one in DATA_DIR as
                   gatehouse.db.before-restore-<time>, and the files folder as
                   files.before-restore-<time> (PostgreSQL: gatehouse.before-restore-
                   <time>.dump); ends every session. Where there is no database yet, the
                   backup becomes it.
${USERS_USAGE}                                 Add --create to any of them to start on a new database.
${OIDC_USAGE}`;

async function run(argv: string[]): Promise<number> {
  const [command] = argv;
  // --create anywhere after initial-invite or users; backup and restore take no such option.
  const creates = command === 'initial-invite' || command === 'users';
  const create = creates && argv.includes('--create');
  const args = creates ? argv.filter((arg) => arg !== '--create') : argv;
  if (command === 'initial-invite') {
    if (args.length !== 1) {
      process.stderr.write(`Usage: npm run --silent cli -- initial-invite [--create]\n`);
      return 2;
    }
    const config = loadConfig(withEnvFile());
    if (!(await useDatabase(config, { create, createFlag: true }))) return 1;
    const link = await initialInviteLink(config);
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
    const config = loadConfig(withEnvFile());
    if (!(await useDatabase(config, { create: false, createFlag: false }))) return 1;
    await backupDatabase(config, target, { force });
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
    const config = loadConfig(withEnvFile());
    // The backup becomes the database where there is none yet (a new machine).
    if (!(await useDatabase(config, { create: true, createFlag: false }))) return 1;
    const keptAt = await restoreDatabase(config, source);
    process.stdout.write(
      `Restored from ${source}${keptAt ? `; the previous database is at ${keptAt}` : ''}. ` +
        'Every session has ended: members sign in again.\n',
    );
    return 0;
  }
  if (command === 'users') {
    try {
      const request = readUsersArgs(args.slice(1));
      const config = loadConfig(withEnvFile());
      if (!(await useDatabase(config, { create, createFlag: true }))) return 1;
      try {
        await usersCommand(config, request, process.stdout, WAY_IN_KINDS);
        return 0;
      } catch (error) {
        const message = commandError(error, request);
        if (!message) throw error;
        process.stderr.write(`${message}\n`);
        return 1;
      }
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      return 2;
    }
  }
  if (command === 'oidc') {
    let request;
    try {
      request = readOidcArgs(args.slice(1));
    } catch (error) {
      if (!(error instanceof OidcUsageError)) throw error;
      process.stderr.write(`${error.message}\n\n${OIDC_USAGE}`);
      return 2;
    }
    const config = loadConfig(withEnvFile());
    if (!(await useDatabase(config, { create: false, createFlag: false }))) return 1;
    try {
      await oidcCommand(config, request, process.stdout);
      return 0;
    } catch (error) {
      const name = error instanceof Error ? error.name : '';
      const message =
        name === 'ValidationError'
          ? (error as Error).message
          : name === 'NotFoundError'
            ? 'No app has that client id.'
            : '';
      if (!message) throw error;
      const fields = (error as { fields?: Record<string, { message: string }> }).fields ?? {};
      process.stderr.write(
        `${message}\n${Object.entries(fields)
          .map(([k, v]) => `  ${k}: ${v.message}\n`)
          .join('')}`,
      );
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
