import { type Config, ConfigError, loadConfig, withEnvFile } from './config.js';
import path from 'node:path';
import { BackupError, backupDatabase, RestoreError, restoreDatabase } from './db/backups.js';
import { openDatabase } from './db/connect.js';
import { migrateToLatest } from './db/migrations/index.js';
import { bootstrapInviteLink, InitialUserExistsError } from './invites/service.js';
import { commandError, UsageError, USERS_USAGE, usersCommand } from './admin/commands.js';
import { WAY_IN_KINDS } from './ways-in-kinds.js';

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
