import type { Kysely, Transaction } from 'kysely';
import type { UsedInviteCode } from '../../../contract/invites.js';
import type { AppContext } from '../core/context.js';
import { lastingWrite } from '../core/one-transaction.js';
import { isUniqueViolation } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { newId } from '../tools/random.js';
import { fromNow, nowString } from '../tools/time.js';
import { formatInviteCode, inviteLink, newInviteCode, normalizeInviteCode } from './codes.js';

export { inviteLink };

/** How many codes the initial user's Generate buttons create per press. */
export const GENERATE_BATCH = 5;

export interface InviteCodeView {
  id: string;
  code: string;
  created: string;
}

type Db = Kysely<Database> | Transaction<Database>;

/** A stored code as its owner sees it, the code in groups of four (`XXXX-XXXX-…`). */
function inviteCodeView(row: InviteCodeView): InviteCodeView {
  return { id: row.id, code: formatInviteCode(row.code), created: row.created };
}

/** An invite code as realtime shows it to its owner (topic `invite_codes`). */
export function inviteCodeRecord(view: Pick<InviteCodeView, 'id'> & Partial<InviteCodeView>) {
  return { collectionId: 'invite_codes', collectionName: 'invite_codes', ...view };
}

/**
 * Tells the owner's realtime subscribers, on every instance, that codes were issued (`create`)
 * or left their list (`delete`: used by an invitee, burnt, revoked). Call after the commit.
 */
export function publishCodes(
  ctx: AppContext,
  ownerId: string | null,
  action: 'create' | 'delete',
  codes: Array<Pick<InviteCodeView, 'id'> & Partial<InviteCodeView>>,
): void {
  if (!ownerId) return;
  for (const code of codes) {
    ctx.events.publish({
      type: 'record',
      collection: 'invite_codes',
      action,
      record: inviteCodeRecord(code),
      userId: ownerId,
    });
  }
}

/** Issues `count` fresh codes to `ownerId` (null: the bootstrap code). */
export async function createInviteCodes(
  db: Db,
  ownerId: string | null,
  count: number,
  options: { bootstrap?: boolean } = {},
): Promise<InviteCodeView[]> {
  if (count <= 0) return [];
  const created = nowString();
  // 100 random bits: a collision is not expected in the life of the universe; the unique index
  // would refuse one anyway.
  const rows = Array.from({ length: count }, () => ({
    id: newId(),
    code: newInviteCode(),
    owner_id: ownerId,
    bootstrap: options.bootstrap ? 1 : 0,
    used_by: null,
    used_at: null,
    created,
  }));
  await db.insertInto('invite_codes').values(rows).execute();
  return rows.map(inviteCodeView);
}

/** An unused code as sign-up needs it: who owns it and whether it makes the initial user. */
export interface UsableInviteCode {
  id: string;
  ownerId: string | null;
  bootstrap: boolean;
  /** As shown to people: XXXX-XXXX-… */
  formatted: string;
}

/** Whether what a person typed holds no code at all (only spaces and dashes, or nothing). */
export function isBlankCode(typed: string): boolean {
  return normalizeInviteCode(typed) === '';
}

/**
 * The unused code matching what a person typed or pasted (case, spaces and dashes ignored), or
 * undefined.
 */
export async function findUsableCode(
  ctx: AppContext,
  typed: string,
): Promise<UsableInviteCode | undefined> {
  const code = normalizeInviteCode(typed);
  if (code === '') return undefined;
  // A disabled member's codes do not work until the member is enabled again.
  const row = await ctx.db
    .selectFrom('invite_codes')
    .leftJoin('users as owner', 'owner.id', 'invite_codes.owner_id')
    .select([
      'invite_codes.id',
      'invite_codes.owner_id',
      'invite_codes.bootstrap',
      'invite_codes.code',
    ])
    .where('invite_codes.code', '=', code)
    .where('invite_codes.used_at', 'is', null)
    .where((eb) => eb.or([eb('owner.disabled', 'is', null), eb('owner.disabled', '=', 0)]))
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    ownerId: row.owner_id,
    bootstrap: row.bootstrap === 1,
    formatted: formatInviteCode(row.code),
  };
}

/**
 * Marks the code used by `userId`, inside the caller's transaction. A conditional update: of two
 * transactions racing for one code exactly one gets true.
 */
export async function consumeCode(
  trx: Transaction<Database>,
  codeId: string,
  userId: string,
): Promise<boolean> {
  const consumed = await trx
    .updateTable('invite_codes')
    .set({ used_at: nowString(), used_by: userId })
    .where('id', '=', codeId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(consumed.numUpdatedRows) === 1;
}

/**
 * How often sign-up may tell the holder of a valid code that an email already has an account:
 * per code, and per inviter (all their codes) in any 24 hours. Past either, the code is burnt
 * (docs/decisions/0019-enumeration-bounds-and-mail-lifetimes.md).
 */
export const TAKEN_EMAIL_ANSWERS = { perCode: 3, perInviterPerDay: 10 } as const;
const DAY_MS = 24 * 60 * 60_000;

/**
 * Records that sign-up is about to answer "this email has an account" to someone holding `invite`
 * and says whether it may. Past the bound it may not: the code is burnt (marked used, by nobody,
 * so it leaves its owner's list and never works again) and sign-up answers as for an invalid code.
 * The answers are rows in the database, so the bound holds across restarts and instances; each is
 * counted before it is checked, so racing requests can only make the bound tighter. In a batch the
 * count outlasts the batch's rollback (which this answer causes): a batch asks no more often than
 * requests alone (core/one-transaction.ts, lastingWrite).
 */
export function allowTakenEmailAnswer(ctx: AppContext, invite: UsableInviteCode): Promise<boolean> {
  return lastingWrite(ctx, (ctx) => countTakenEmailAnswer(ctx, invite));
}

async function countTakenEmailAnswer(ctx: AppContext, invite: UsableInviteCode): Promise<boolean> {
  await ctx.db
    .insertInto('taken_email_answers')
    .values({ id: newId(), code_id: invite.id, owner_id: invite.ownerId, created: nowString() })
    .execute();
  const count = (rows: { n: number | string | bigint } | undefined) => Number(rows?.n ?? 0);
  const perCode = count(
    await ctx.db
      .selectFrom('taken_email_answers')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('code_id', '=', invite.id)
      .executeTakeFirst(),
  );
  const perInviter =
    invite.ownerId === null
      ? 0
      : count(
          await ctx.db
            .selectFrom('taken_email_answers')
            .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
            .where('owner_id', '=', invite.ownerId)
            .where('created', '>', fromNow(-DAY_MS))
            .executeTakeFirst(),
        );
  if (
    perCode <= TAKEN_EMAIL_ANSWERS.perCode &&
    perInviter <= TAKEN_EMAIL_ANSWERS.perInviterPerDay
  ) {
    return true;
  }
  const burnt = await ctx.db
    .updateTable('invite_codes')
    .set({ used_at: nowString() })
    .where('id', '=', invite.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(burnt.numUpdatedRows) === 1) {
    publishCodes(ctx, invite.ownerId, 'delete', [{ id: invite.id, code: invite.formatted }]);
  }
  ctx.log.warn(
    { codeId: invite.id, ownerId: invite.ownerId, perCode, perInviter },
    'invite code burnt: too many sign-ups with emails that already have accounts',
  );
  return false;
}

/** Deletes every code the user owns (used or not), inside the caller's transaction. */
export async function deleteCodesOf(trx: Transaction<Database>, ownerId: string): Promise<void> {
  await trx.deleteFrom('invite_codes').where('owner_id', '=', ownerId).execute();
}

/**
 * Deletes an unused code (an operator's Revoke). 'used': the code was used and is kept as the
 * record of who invited whom; 'missing': no such code.
 */
export async function revokeUnusedCode(
  db: Db,
  id: string,
): Promise<{ result: 'revoked' | 'used' | 'missing'; ownerId: string | null }> {
  const row = await db
    .selectFrom('invite_codes')
    .select(['owner_id', 'used_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return { result: 'missing', ownerId: null };
  if (row.used_at !== null) return { result: 'used', ownerId: row.owner_id };
  const deleted = await db
    .deleteFrom('invite_codes')
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return {
    result: Number(deleted.numDeletedRows) === 1 ? 'revoked' : 'used',
    ownerId: row.owner_id,
  };
}

/** Every code the user owns, used or not, with who used it (an id only), newest first. */
export async function listAllCodesOf(ctx: AppContext, ownerId: string) {
  const rows = await ctx.db
    .selectFrom('invite_codes')
    .select(['id', 'code', 'created', 'used_at', 'used_by'])
    .where('owner_id', '=', ownerId)
    .orderBy('created', 'desc')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...inviteCodeView(r), used: r.used_at, usedBy: r.used_by }));
}

/** How many of the codes people joined with GET /api/invite-codes lists (the newest). */
export const JOINED_LISTED = 50;

/**
 * The member's codes that someone signed up with, most recently used first, with who that was as
 * their inviter may see them (contract/invites.ts `UsedInviteCode`): the name, the avatar (which
 * the inviter may fetch), the email only when they show it. A code burnt by sign-up's bound has
 * no one (`used_by` null) and is left out; an invitee whose account is gone is `member: null`.
 */
async function joinedWith(ctx: AppContext, ownerId: string): Promise<UsedInviteCode[]> {
  const rows = await ctx.db
    .selectFrom('invite_codes as c')
    .leftJoin('users as m', 'm.id', 'c.used_by')
    .select([
      'c.id',
      'c.code',
      'c.used_at',
      'm.id as member_id',
      'm.name',
      'm.email',
      'm.email_visibility',
      'm.avatar',
    ])
    .where('c.owner_id', '=', ownerId)
    .where('c.used_at', 'is not', null)
    .where('c.used_by', 'is not', null)
    .orderBy('c.used_at', 'desc')
    .orderBy('c.id')
    .limit(JOINED_LISTED)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    code: formatInviteCode(r.code),
    usedAt: r.used_at ?? '',
    member:
      r.member_id === null
        ? null
        : {
            id: r.member_id,
            name: r.name ?? '',
            ...(r.email_visibility === 1 && r.email ? { email: r.email } : {}),
            avatar: r.avatar ?? '',
          },
  }));
}

/**
 * GET /api/invite-codes's body, `{"codes":[…],"used":[…]}`: the member's unused codes, newest
 * first, then the codes people joined with. The read cache hands out the same unused rows until
 * the data changes, so each rows object gets its body built and serialized once; a request served
 * from the cache sends the string it already has. The joined list is read with it: on SQLite the
 * cache hands out new rows after any commit (an invitee's new name included); on PostgreSQL an
 * entry lives a second at most (docs/decisions/0039), so the joined list is as fresh as that.
 */
export async function inviteCodesBody(ctx: AppContext, ownerId: string): Promise<string> {
  const rows = await ctx.queries.unusedCodes(ownerId);
  let body = bodies.get(rows);
  if (body === undefined) {
    const used = await joinedWith(ctx, ownerId);
    body = JSON.stringify({ codes: rows.map(inviteCodeView), used });
    bodies.set(rows, body);
  }
  return body;
}

const bodies = new WeakMap<object, string>();

export class InitialUserExistsError extends Error {
  constructor() {
    super('The initial user already exists, so there is no bootstrap invite to print.');
  }
}

/**
 * The sign-up link that makes the initial user: the unused bootstrap code, or a new one when it is
 * gone. Throws InitialUserExistsError once the initial user exists.
 */
export async function bootstrapInviteLink(db: Kysely<Database>, appUrl: string): Promise<string> {
  if (await hasInitialUser(db)) throw new InitialUserExistsError();
  const existing = await db
    .selectFrom('invite_codes')
    .select('code')
    .where('bootstrap', '=', 1)
    .where('used_at', 'is', null)
    .orderBy('created', 'desc')
    .executeTakeFirst();
  if (existing) return inviteLink(appUrl, existing.code);
  try {
    const [code] = await createInviteCodes(db, null, 1, { bootstrap: true });
    return inviteLink(appUrl, code!.code);
  } catch (error) {
    if (isUniqueViolation(error)) return bootstrapInviteLink(db, appUrl);
    throw error;
  }
}

/** Whether the database has no initial user yet (the bootstrap link should be shown). */
export async function hasInitialUser(db: Kysely<Database>): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('is_initial_user', '=', 1)
    .executeTakeFirst();
  return row !== undefined;
}
