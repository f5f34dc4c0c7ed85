import { inviteMail } from '../accounts/service.js';
import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { fieldError, VALIDATION_FAILED, ValidationError } from '../core/errors.js';
import type { Limit } from '../core/rate-limit.js';
import { inTransaction } from '../core/transaction.js';
import type { User } from '../db/schema.js';
import { createInviteCodes, inviteLink, publishCodes } from '../invites/service.js';
import { enqueueMail } from '../mail/service.js';
import { isEmail, normalizeEmail } from '../tools/email.js';

/**
 * Invite by email (POST /api/admin/invite-email): an operator types an address; the server makes
 * one invite code of the operator's, as Give Codes makes them (the operator is the inviter, in
 * the tree and in their own list of codes), and mails the address a sign-up link with it, through
 * the outbox (docs/decisions/0057).
 */

/** Per operator: 20 invitations an hour. */
export const INVITE_EMAIL_LIMIT: Limit = {
  name: 'invite-email',
  max: 20,
  windowMs: 60 * 60_000,
  per: 'account',
};

/** Per address: 3 invitations a day, whoever sends them (nobody's inbox is flooded from here). */
export const INVITE_EMAIL_TO_LIMIT: Limit = {
  name: 'invite-email-to',
  max: 3,
  windowMs: 24 * 60 * 60_000,
  per: 'account',
};

export const ALREADY_A_MEMBER = 'This address is already a member.';

export async function inviteByEmail(
  ctx: AppContext,
  operator: User,
  typed: string,
  client: Client,
) {
  await ctx.limiter.check(INVITE_EMAIL_LIMIT, operator.id);
  if (typed.trim() === '') {
    throw new ValidationError(VALIDATION_FAILED, { email: fieldError.required() });
  }
  if (!isEmail(typed))
    throw new ValidationError(VALIDATION_FAILED, { email: fieldError.isEmail() });
  const email = normalizeEmail(typed);
  // Only operators reach this (the route's check comes first): nobody else learns who is a member.
  const member = await ctx.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirst();
  if (member) {
    throw new ValidationError(ALREADY_A_MEMBER, {
      email: { code: 'validation_already_member', message: ALREADY_A_MEMBER },
    });
  }
  await ctx.limiter.check(INVITE_EMAIL_TO_LIMIT, email);
  const { appName, appUrl } = ctx.settings;
  const inviter = operator.name.trim() || operator.email;
  const code = await inTransaction(ctx, async (work) => {
    const [code] = await createInviteCodes(work.trx, operator.id, 1);
    // The invitee has no account, so no language of their own: the operator's, who writes to them.
    const link = inviteLink(appUrl, code!.code);
    const content = inviteMail(operator.language, appName, link, code!.code, inviter);
    await enqueueMail(work.trx, { ...content, to: email, userId: null, kind: 'invite' });
    await recordEvent(work.trx, {
      type: 'admin_invite_sent',
      userId: operator.id,
      client,
      detail: { actor: operator.id, code: code!.id },
    });
    work.mailQueued();
    return code!;
  });
  publishCodes(ctx, operator.id, 'create', [code]);
  return { email, code };
}
