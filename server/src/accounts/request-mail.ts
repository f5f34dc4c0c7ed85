import type { Transaction } from 'kysely';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  fieldError,
  type FieldErrors,
  VALIDATION_FAILED,
} from '../core/errors.js';
import { Tokens } from '../core/tokens.js';
import type { Database, User } from '../db/schema.js';
import { enqueueMail } from '../mail/service.js';
import { isEmail, normalizeEmail } from '../tools/email.js';
import { fromNow, nowString } from '../tools/time.js';
import { ACCOUNT_LIMITS } from './limits.js';
import { passwordResetMail, verificationMail } from './mails.js';

/** A mail of either kind is sent to one account at most once per this interval. */
export const RESEND_THROTTLE_MS = 2 * 60_000;

export type AccountMailKind = 'verification' | 'passwordReset';

/**
 * request-verification and request-password-reset: checks the email field, answers, and only then
 * queues the mail if the account should get one: it exists (and, for verification, is unverified)
 * and was not sent one of this kind within the throttle interval. The throttle is a conditional
 * update in the database, so it holds across restarts and instances. Says nothing about the
 * outcome: the endpoints always answer 204, so nobody learns which emails have accounts; and as
 * the lookup and queueing run after the answer is sent, its timing says nothing either
 * (docs/decisions/0019). A failure there is logged; the throttle mark and the mail commit together
 * or not at all.
 */
export async function requestAccountMail(
  ctx: AppContext,
  kind: AccountMailKind,
  email: string,
  client: Client,
): Promise<void> {
  await ctx.limiter.check(ACCOUNT_LIMITS.requestMail, client.network);
  const errors: FieldErrors = {};
  if (email.trim() === '') errors.email = fieldError.required();
  else if (!isEmail(email)) errors.email = fieldError.isEmail();
  assertNoFieldErrors(errors, VALIDATION_FAILED);
  afterAnswer(ctx, () => queueIfDue(ctx, kind, normalizeEmail(email), client));
}

async function queueIfDue(
  ctx: AppContext,
  kind: AccountMailKind,
  email: string,
  client: Client,
): Promise<void> {
  const column = kind === 'verification' ? 'verification_sent_at' : 'reset_sent_at';
  const queued = await ctx.db.transaction().execute(async (trx) => {
    let update = trx
      .updateTable('users')
      .set({ [column]: nowString() })
      .where('email', '=', email)
      .where((eb) =>
        eb.or([eb(column, 'is', null), eb(column, '<=', fromNow(-RESEND_THROTTLE_MS))]),
      );
    if (kind === 'verification') update = update.where('verified', '=', 0);
    const user = await update.returningAll().executeTakeFirst();
    if (!user) return false;
    await queueAccountMail(ctx, trx, kind, user);
    const type = kind === 'verification' ? 'verification_requested' : 'password_reset_requested';
    await recordEvent(trx, { type, userId: user.id, client });
    return true;
  });
  if (queued) ctx.mailQueued();
}

/**
 * An operator's Resend Verification: queues the mail now (no throttle: an operator asked), moves
 * the throttle's clock, and logs it as `admin_resend_verification` with the operator as `actor`.
 * false when the member is already verified.
 */
export async function resendVerificationMail(
  ctx: AppContext,
  user: User,
  client: Client,
  actor: string,
): Promise<boolean> {
  if (user.verified === 1) return false;
  await ctx.db
    .transaction()
    .execute((trx) => operatorAccountMail(ctx, trx, 'verification', user, client, actor));
  ctx.mailQueued();
  return true;
}

/**
 * A mail of `kind` an operator sends the member, in the caller's transaction (the caller wakes
 * the mail worker after it): queued now, whatever the throttle (an operator asked), whose clock it
 * moves; logged as `admin_resend_verification` or `admin_send_password_reset` with the operator as
 * `actor`.
 */
export async function operatorAccountMail(
  ctx: AppContext,
  trx: Transaction<Database>,
  kind: AccountMailKind,
  user: User,
  client: Client,
  actor: string,
): Promise<void> {
  const column = kind === 'verification' ? 'verification_sent_at' : 'reset_sent_at';
  await trx
    .updateTable('users')
    .set({ [column]: nowString() })
    .where('id', '=', user.id)
    .execute();
  await queueAccountMail(ctx, trx, kind, user);
  await recordEvent(trx, {
    type: kind === 'verification' ? 'admin_resend_verification' : 'admin_send_password_reset',
    userId: user.id,
    client,
    detail: { actor },
  });
}

export async function queueAccountMail(
  ctx: AppContext,
  trx: Transaction<Database>,
  kind: AccountMailKind,
  user: User,
): Promise<void> {
  const { appName, appUrl } = ctx.settings;
  const token = ctx.tokens.sign(kind, user);
  const content =
    kind === 'verification'
      ? verificationMail(user.language, appName, appUrl, token)
      : passwordResetMail(user.language, appName, appUrl, token);
  const expiresAt = new Date(Tokens.decode(token)!.exp * 1000);
  await enqueueMail(trx, { ...content, to: user.email, userId: user.id, kind, expiresAt });
}

const pending = new WeakMap<AppContext, Set<Promise<void>>>();

/**
 * Runs `work` once the current request has been answered (the reply is written in this turn of
 * the event loop; `work` starts in the next), logging its failure. Tracked so that shutdown can
 * wait for it (settleAccountMail).
 */
export function afterAnswer(ctx: AppContext, work: () => Promise<void>): void {
  let tasks = pending.get(ctx);
  if (!tasks) pending.set(ctx, (tasks = new Set()));
  const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(work)
    .catch((error: unknown) => ctx.log.error({ err: error }, 'account mail request failed'))
    .finally(() => tasks.delete(task));
  tasks.add(task);
}

/** Waits for the mail requests still being worked on after their answer (at shutdown). */
export async function settleAccountMail(ctx: AppContext): Promise<void> {
  await Promise.all([...(pending.get(ctx) ?? [])]);
}
