import type { WayInKind } from '../core/ways-in.js';
import type { Writable } from 'node:stream';
import type { Config } from '../config.js';
import { type AppContext, type Client, createContext } from '../core/context.js';
import { type Events, openEvents } from '../core/events.js';
import { pino } from 'pino';
import { ForbiddenError, NotFoundError, ValidationError } from '../core/errors.js';
import { loadSigningSecret, tokenSecrets } from '../core/tokens.js';
import { findUserByEmail, isOperator } from '../core/users.js';
import { openDatabase } from '../db/connect.js';
import { migrateToLatest } from '../db/migrations/index.js';
import { CLI_ACTOR } from '../audit/service.js';
import { deleteMember, disableMember, enableMember, resetTwoStep, setOperator } from './actions.js';
import { emailContains } from './members.js';

/**
 * `npm run --silent cli -- users …`: the console's member actions for a shell, on the database
 * of DATA_DIR / DATABASE_URL (a running server sees the change on its next request). Each action
 * is a security event with `cli` as the actor.
 */

export const USERS_USAGE = `  users list [--q TEXT]          One line per member: email, id, status, role (tab-separated).
                                 --q keeps the emails that contain TEXT.
  users disable EMAIL            Disable the account: sessions end, sign-in and its codes refused.
  users enable EMAIL             Enable it again.
  users delete EMAIL             Delete the account (as its owner would).
  users make-operator EMAIL      Let the member use the operator console.
  users remove-operator EMAIL    Take it back (never from the initial user).
  users reset-two-step EMAIL     Turn off the member's two-step sign-in and remove their passkeys
                                 (they lost their phone and recovery codes); they are mailed.
`;

/** A wrong use of the command: the message, then the usage, exit code 2. */
export class UsageError extends Error {}

const CLI_CLIENT: Client = { ip: 'cli', network: 'cli', userAgent: 'gatehouse-cli' };
const ACTOR = CLI_ACTOR;
const BATCH = 1000;

const ACTIONS = [
  'list',
  'disable',
  'enable',
  'delete',
  'make-operator',
  'remove-operator',
  'reset-two-step',
] as const;

/** What `users …` was asked to do: read before the database is opened. */
export interface UsersRequest {
  action: (typeof ACTIONS)[number];
  /** list: the text the emails must contain ('' for every member). */
  q: string;
  /** Every other action: the member's email. */
  email: string;
}

/** The arguments after `users`; a wrong use throws UsageError. */
export function readUsersArgs(args: string[]): UsersRequest {
  const [word, ...rest] = args;
  const action = ACTIONS.find((a) => a === word);
  if (!action) {
    throw new UsageError(word ? `Unknown users command "${word}".` : 'Missing users command.');
  }
  if (action === 'list') {
    if (rest.length === 2 && rest[0] === '--q') {
      return { action, q: rest[1]!.trim().toLowerCase(), email: '' };
    }
    if (rest.length !== 0) throw new UsageError('Usage: users list [--q TEXT]');
    return { action, q: '', email: '' };
  }
  if (rest.length !== 1 || rest[0]!.startsWith('-')) {
    throw new UsageError(`Usage: users ${action} EMAIL`);
  }
  return { action, q: '', email: rest[0]! };
}

export async function usersCommand(
  config: Config,
  { action, q, email }: UsersRequest,
  out: Writable,
  waysIn: readonly WayInKind[],
): Promise<void> {
  const secrets = tokenSecrets(loadSigningSecret(config));
  const database = openDatabase(config);
  let events: Events | undefined;
  try {
    await migrateToLatest(database.db);
    // On PostgreSQL the running instances hear what the command changed (their members' tabs).
    events = await openEvents(config.databaseUrl, database.db, pino({ level: 'silent' }), {
      listen: false,
    });
    const ctx = createContext(config, database, secrets, { events, waysIn });
    // The app name its notice mails carry may be a setting (core/settings.ts).
    await ctx.settings.reload();
    if (action === 'list') return await listUsers(ctx, q, out);

    const member = await findUserByEmail(ctx, email);
    if (!member) throw new NotFoundError();
    if (action === 'reset-two-step') {
      const { removed } = await resetTwoStep(ctx, member.id, ACTOR, CLI_CLIENT);
      const what = [
        ...(removed.twoStep ? ['two-step sign-in turned off'] : []),
        ...(removed.passkeys > 0
          ? [`${removed.passkeys} ${removed.passkeys === 1 ? 'passkey' : 'passkeys'} removed`]
          : []),
      ];
      out.write(`Reset two-step sign-in of ${member.email}: ${what.join(', ')}.\n`);
      return;
    }
    if (action === 'disable') await disableMember(ctx, member.id, ACTOR, CLI_CLIENT);
    else if (action === 'enable') await enableMember(ctx, member.id, ACTOR, CLI_CLIENT);
    else if (action === 'delete') await deleteMember(ctx, member.id, ACTOR, CLI_CLIENT);
    else await setOperator(ctx, member.id, action === 'make-operator', ACTOR, CLI_CLIENT);
    const done = {
      disable: 'Disabled',
      enable: 'Enabled',
      delete: 'Deleted',
      'make-operator': 'Made an operator:',
      'remove-operator': 'No longer an operator:',
    }[action];
    out.write(`${done} ${member.email}\n`);
  } finally {
    await events?.close();
    await database.close();
  }
}

/** Every member (or those whose email contains `q`), by email, fetched in batches. */
async function listUsers(ctx: AppContext, q: string, out: Writable): Promise<void> {
  let after = '';
  for (;;) {
    let query = ctx.db
      .selectFrom('users')
      .select(['id', 'email', 'verified', 'disabled', 'is_operator', 'is_initial_user'])
      .where('email', '>', after)
      .orderBy('email')
      .limit(BATCH);
    if (q !== '') query = query.where(emailContains(q));
    const rows = await query.execute();
    for (const r of rows) {
      const status = r.disabled === 1 ? 'disabled' : r.verified === 1 ? 'verified' : 'unverified';
      const role = r.is_initial_user === 1 ? 'initial' : isOperator(r) ? 'operator' : 'member';
      out.write(`${r.email}\t${r.id}\t${status}\t${role}\n`);
    }
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!.email;
  }
}

/** The message for a failure the operator can act on; undefined for anything else. */
export function commandError(error: unknown, request: UsersRequest): string | undefined {
  if (error instanceof NotFoundError) return `No member with the email "${request.email}".`;
  if (error instanceof ForbiddenError || error instanceof ValidationError) return error.message;
  return undefined;
}
