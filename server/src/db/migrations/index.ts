import {
  type Kysely,
  sql,
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
} from 'kysely';
import type { Database } from '../schema.js';
import { initial } from './0001-initial.js';
import { sessionsAndSecurityEvents } from './0002-sessions-and-security-events.js';
import { tokenSecretsOutOfTheDatabase } from './0003-token-secrets-out-of-the-database.js';
import { outboxExpiry } from './0004-outbox-expiry.js';
import { takenEmailAnswers } from './0005-taken-email-answers.js';
import { twoStep } from './0006-two-step.js';
import { operators } from './0007-operators.js';
import { changeNotifications } from './0008-change-notifications.js';
import { externalAuths } from './0009-external-auths.js';
import { memberSearch } from './0010-member-search.js';
import { sessionConfirmedAt } from './0011-session-confirmed-at.js';
import { emailCodes } from './0012-email-codes.js';
import { nameAndAvatar } from './0013-name-and-avatar.js';
import { requestLogs } from './0014-request-logs.js';
import { impersonation } from './0015-impersonation.js';
import { oidc } from './0016-oidc.js';
import { memberSort } from './0017-member-sort.js';
import { usersVerifiedCreated } from './0018-users-verified-created.js';
import { usersLanguage } from './0019-users-language.js';

/**
 * The one set of migrations, for SQLite and PostgreSQL, one file each in this folder. Kept in
 * code (not read from disk) so the same list runs from TypeScript sources and from the bundled
 * build. The names are what Kysely stores in every database's migration table: never rename one,
 * and never edit a shipped migration. A new one is the next number's file (`0012-what-it-does.ts`,
 * exporting its `Migration`) and one line at the end of this list (`'0012_what_it_does'`).
 */
const migrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_sessions_and_security_events': sessionsAndSecurityEvents,
  '0003_token_secrets_out_of_the_database': tokenSecretsOutOfTheDatabase,
  '0004_outbox_expiry': outboxExpiry,
  '0005_taken_email_answers': takenEmailAnswers,
  '0006_two_step': twoStep,
  '0007_operators': operators,
  '0008_change_notifications': changeNotifications,
  '0009_external_auths': externalAuths,
  '0010_member_search': memberSearch,
  '0011_session_confirmed_at': sessionConfirmedAt,
  '0012_email_codes': emailCodes,
  '0013_name_and_avatar': nameAndAvatar,
  '0014_request_logs': requestLogs,
  '0015_impersonation': impersonation,
  '0016_oidc': oidc,
  '0017_member_sort': memberSort,
  '0018_users_verified_created': usersVerifiedCreated,
  '0019_users_language': usersLanguage,
};

const provider: MigrationProvider = {
  getMigrations: async () => migrations,
};

/**
 * Brings a database to the newest schema. A database that has run exactly this list (every start
 * after the first) is recognised by one read of Kysely's table; anything else (a new database, a
 * migration to run, one this version does not know) goes through Kysely's migrator, with its lock
 * and its checks. Its table and lock checks otherwise read the schema of every table at each start
 * (docs/decisions/0065).
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  if (await upToDate(db)) return;
  await migrate(db, (migrator) => migrator.migrateToLatest());
}

/** Whether Kysely's table lists exactly the migrations of this version (none missing, none more). */
async function upToDate(db: Kysely<Database>): Promise<boolean> {
  const names = Object.keys(migrations);
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    const done = new Set(rows.map((row) => row.name));
    return done.size === names.length && names.every((name) => done.has(name));
  } catch {
    return false; // no table yet: a new database
  }
}

/** Brings a database exactly to `name` (upgrade tests start from an older schema this way). */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  await migrate(db, (migrator) => migrator.migrateTo(name));
}

async function migrate(
  db: Kysely<Database>,
  run: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<void> {
  const migrator = new Migrator({ db: db as unknown as Kysely<unknown>, provider });
  const { error, results } = await run(migrator);
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const name = failed ? ` (${failed.migrationName})` : '';
    throw new Error(`Database migration failed${name}: ${String(error)}`, { cause: error });
  }
}
