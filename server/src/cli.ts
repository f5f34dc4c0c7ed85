import { type Config, ConfigError, loadConfig } from './config.js';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { DATABASE_FILE, openDatabase } from './db/connect.js';
import { migrateToLatest } from './db/migrations.js';
import { bootstrapInviteLink, InitialUserExistsError } from './invites/service.js';
import { commandError, UsageError, USERS_USAGE, usersCommand } from './admin/commands.js';

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
 * A consistent copy of the SQLite database while the server runs (SQLite's online backup).
 * PostgreSQL is backed up with its own tools (pg_dump); see docs/operations.md.
 */
export async function backupDatabase(config: Config, target: string): Promise<void> {
  if (config.databaseUrl) {
    throw new ConfigError(['backup copies the SQLite database; with DATABASE_URL use pg_dump']);
  }
  const file = path.join(config.dataDir, DATABASE_FILE);
  if (!fs.existsSync(file)) throw new ConfigError([`no database at ${file}`]);
  const sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    await sqlite.backup(target);
  } finally {
    sqlite.close();
  }
}

const USAGE = `Usage: npm run --silent cli -- <command>

Commands:
  initial-invite   Print the sign-up link that creates the initial user (one line on stdout).
                   Fails once the initial user exists.
  backup <file>    Copy the SQLite database to <file>, safely while the server runs.
${USERS_USAGE}`;

async function run(args: string[]): Promise<number> {
  const [command] = args;
  if (command === 'initial-invite') {
    const link = await initialInviteLink(loadConfig(process.env));
    process.stdout.write(`${link}\n`);
    return 0;
  }
  if (command === 'backup' && args[1]) {
    await backupDatabase(loadConfig(process.env), path.resolve(args[1]));
    process.stdout.write(`Backed up to ${path.resolve(args[1])}\n`);
    return 0;
  }
  if (command === 'users') {
    try {
      await usersCommand(loadConfig(process.env), args.slice(1), process.stdout);
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
      const known = error instanceof ConfigError || error instanceof InitialUserExistsError;
      process.stderr.write(`${known ? (error as Error).message : String(error)}\n`);
      process.exit(1);
    },
  );
}
