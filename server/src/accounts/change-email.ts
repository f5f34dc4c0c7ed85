import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  assertNoFieldErrors,
  type FieldError,
  fieldError,
  type FieldErrors,
  ForbiddenError,
  VALIDATION_FAILED,
} from '../core/errors.js';
import { endSessions } from '../core/sessions.js';
import { inTransaction } from '../core/transaction.js';
import { Tokens } from '../core/tokens.js';
import { findUserByEmail, findUserByToken } from '../core/users.js';
import { isUniqueViolation } from '../db/connect.js';
import type { User } from '../db/schema.js';
import { enqueueMail } from '../mail/service.js';
import { isEmail, normalizeEmail } from '../tools/email.js';
import { newSecret } from '../tools/random.js';
import { formatDate } from '../tools/time.js';
import { ACCOUNT_LIMITS } from './limits.js';
import { emailChangeMail, emailTakenMail } from './mails.js';
import { queueNotice } from './notices.js';
import { isCurrentPassword } from './passwords.js';
import { countFailure } from './sign-in.js';

const sameAsCurrent = (): FieldError => ({
  code: 'validation_not_in_invalid',
  message: 'Must not be in list.',
});

/**
 * request-email-change: a verified member asks to move their account to `newEmail`. Always 204,
 * whether or not the address is taken, so nobody learns which addresses have accounts: a free
 * address gets the confirmation link, a taken one a mail saying someone tried.
 */
export async function requestEmailChange(
  ctx: AppContext,
  user: User,
  input: { newEmail: string },
  client: Client,
): Promise<void> {
  if (user.verified !== 1) throw new ForbiddenError();
  const newEmail = normalizeEmail(input.newEmail);
  const errors: FieldErrors = {};
  if (newEmail === '') errors.newEmail = fieldError.required();
  else if (!isEmail(newEmail)) errors.newEmail = fieldError.isEmail();
  else if (newEmail === user.email) errors.newEmail = sameAsCurrent();
  assertNoFieldErrors(errors, VALIDATION_FAILED);
  await ctx.limiter.check(ACCOUNT_LIMITS.emailChange, user.id);

  const { appName, appUrl } = ctx.settings;
  const taken = await findUserByEmail(ctx, newEmail);
  const token = ctx.tokens.sign('emailChange', user, { newEmail });
  const linkExpiry = new Date(Tokens.decode(token)!.exp * 1000);
  // Each in its reader's language: the account the address already has, or the one moving.
  const mail = taken
    ? emailTakenMail(taken.language, appName, appUrl, newEmail)
    : emailChangeMail(user.language, appName, appUrl, token, newEmail);
  await ctx.db.transaction().execute(async (trx) => {
    await enqueueMail(trx, {
      ...mail,
      to: newEmail,
      userId: taken ? null : user.id,
      ...(taken ? { kind: 'emailTaken' } : { kind: 'emailChange', expiresAt: linkExpiry }),
    });
    await recordEvent(trx, { type: 'email_change_requested', userId: user.id, client });
  });
  ctx.mailQueued();
}

/**
 * confirm-email-change: the link's token and the account's password move the account to the new
 * address. A wrong password counts against the account's sign-in failure limits and is logged.
 * The account becomes verified (the link reached the new mailbox), the tokenKey rotates,
 * every session ends, and the old address is told.
 */
export async function confirmEmailChange(
  ctx: AppContext,
  input: { token: string; password: string },
  client: Client,
): Promise<void> {
  await ctx.limiter.check(ACCOUNT_LIMITS.confirm, client.network);
  const token = input.token.trim();
  const errors: FieldErrors = {};
  const user = token === '' ? undefined : await findUserByToken(ctx, token, 'emailChange');
  const newEmail = user ? Tokens.decode(token)?.newEmail : undefined;
  if (token === '') errors.token = fieldError.required();
  else if (!user || typeof newEmail !== 'string' || !isEmail(newEmail)) {
    errors.token = fieldError.invalidToken();
  }
  if (input.password === '') errors.password = fieldError.required();
  else if (!user) errors.password = fieldError.invalidPassword();
  else {
    // A guess at the password counts like a failed sign-in on this account (taken back when it
    // is right): a link in hand does not make guessing cheaper than the sign-in form.
    const takeBack = await countFailure(ctx, user.email, client);
    if (await isCurrentPassword(user.password_hash, input.password)) await takeBack();
    else {
      errors.password = fieldError.invalidPassword();
      await recordEvent(ctx.db, {
        type: 'email_changed',
        userId: user.id,
        client,
        outcome: 'failure',
        detail: { reason: 'wrong_password' },
      });
    }
  }
  assertNoFieldErrors(errors, VALIDATION_FAILED);
  if (!user || typeof newEmail !== 'string') return; // (asserted above)

  const at = new Date();
  const now = formatDate(at);
  const tokenTaken = () => ({ token: fieldError.invalidToken() });
  try {
    await inTransaction(ctx, async (work) => {
      const { trx } = work;
      const changed = await trx
        .updateTable('users')
        .set({ email: newEmail, verified: 1, token_key: newSecret(), updated: now })
        .where('id', '=', user.id)
        .where('token_key', '=', user.token_key)
        .where('email', '=', user.email)
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows) !== 1)
        assertNoFieldErrors(tokenTaken(), VALIDATION_FAILED);
      work.publish({ type: 'user-changed', userId: user.id });
      await endSessions(work, user.id, {}, (ended) => ({
        type: 'email_changed',
        client,
        detail: { sessionsEnded: ended },
      }));
      const { appName } = ctx.settings;
      // To the old address: its owner is the one who must hear of it.
      await queueNotice(ctx, trx, user, client, {
        kind: 'emailChanged',
        en: {
          subject: `Your ${appName} email was changed`,
          what: `The email address of your ${appName} account was changed from ${user.email} to ${newEmail}.`,
          outro: 'Every session of your account ended when the address changed.',
        },
        de: {
          subject: `Ihre E-Mail-Adresse für ${appName} wurde geändert`,
          what: `Die E-Mail-Adresse Ihres Kontos bei ${appName} wurde von ${user.email} in ${newEmail} geändert.`,
          outro: 'Mit der Änderung der Adresse wurden alle Sitzungen Ihres Kontos beendet.',
        },
      });
      work.mailQueued();
    });
  } catch (error) {
    // The new address was taken between the request and now: nothing changes.
    if (isUniqueViolation(error)) assertNoFieldErrors(tokenTaken(), VALIDATION_FAILED);
    throw error;
  }
}
