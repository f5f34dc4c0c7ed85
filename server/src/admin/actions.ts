import { CLI_ACTOR } from '../audit/service.js';
import {
  deleteAccount,
  type Notice,
  queueNotice,
  resendVerificationMail,
} from '../accounts/service.js';
import { recordEvent, type SecurityEventType } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import {
  ForbiddenError,
  NotFoundError,
  ValidationError,
  fieldError,
  VALIDATION_FAILED,
} from '../core/errors.js';
import { endSessions, endViewsBy } from '../core/sessions.js';
import { inTransaction, type Work } from '../core/transaction.js';
import type { User } from '../db/schema.js';
import { createInviteCodes, publishCodes, revokeUnusedCode } from '../invites/service.js';
import { nowString } from '../tools/time.js';
import { memberOr404 } from './members.js';

/**
 * The operator's actions on a member, shared by the HTTP console and the CLI. `actor` is the
 * operator's id, or `cli`; every action is a security event with the member as `user_id` and the
 * actor in `detail.actor`. The initial user can be neither disabled, deleted nor demoted.
 */

export const MAX_GIVEN_CODES = 50;

export const NOTHING_TO_RESET = 'This member has neither two-step sign-in nor a passkey.';
export const PASSKEYS_ONLY_WAY_IN =
  'This member has no password and no connected account: their passkeys are their only way in. Ask them to choose a password with "Forgot password" on the sign-in screen first, then reset two-step sign-in.';

async function logged(
  ctx: AppContext,
  type: SecurityEventType,
  member: string | null,
  actor: string,
  client: Client,
  detail: Record<string, string | number | boolean> = {},
) {
  await recordEvent(ctx.db, { type, userId: member, client, detail: { actor, ...detail } });
}

/** Why `actor` may not disable `member` (the single action's 403), or undefined when they may. */
export function disableRefusal(member: User, actor: string): string | undefined {
  if (member.is_initial_user === 1) return 'The initial user cannot be disabled.';
  if (member.id === actor) return 'You cannot disable your own account.';
  return undefined;
}

/**
 * Disables the member in `work` (Disable, and the Members table's bulk Disable): every session
 * ends at once (rows deleted), sign-in and codes refused, and so does every view as a member they
 * had open (docs/decisions/0056).
 */
export async function disableIn(work: Work, id: string, actor: string, client: Client) {
  await work.trx
    .updateTable('users')
    .set({ disabled: 1, updated: nowString() })
    .where('id', '=', id)
    .execute();
  work.publish({ type: 'user-changed', userId: id });
  await endSessions(work, id, {}, (sessions) => ({
    type: 'admin_disable',
    client,
    detail: { actor, sessions },
  }));
  await endViewsBy(work, id, () => ({
    type: 'admin_view_as_ended',
    client,
    detail: { actor: id, reason: 'operator_disabled' },
  }));
}

/** Enables the member in `work` (Enable, and the bulk Enable). */
export async function enableIn(work: Work, id: string, actor: string, client: Client) {
  await work.trx
    .updateTable('users')
    .set({ disabled: 0, updated: nowString() })
    .where('id', '=', id)
    .execute();
  await recordEvent(work.trx, { type: 'admin_enable', userId: id, client, detail: { actor } });
  work.publish({ type: 'user-changed', userId: id });
}

/**
 * Marks the member's email verified in `work` (the Members table's Mark Verified): an operator
 * vouches for the address.
 */
export async function markVerifiedIn(work: Work, id: string, actor: string, client: Client) {
  await work.trx
    .updateTable('users')
    .set({ verified: 1, updated: nowString() })
    .where('id', '=', id)
    .execute();
  await recordEvent(work.trx, {
    type: 'admin_mark_verified',
    userId: id,
    client,
    detail: { actor },
  });
  work.publish({ type: 'user-changed', userId: id });
}

/** Disables the member (disableIn); 403 for the initial user and the operator's own account. */
export async function disableMember(
  ctx: AppContext,
  id: string,
  actor: string,
  client: Client,
): Promise<User> {
  const member = await memberOr404(ctx, id);
  const refusal = disableRefusal(member, actor);
  if (refusal) throw new ForbiddenError(refusal);
  await inTransaction(ctx, (work) => disableIn(work, id, actor, client));
  return memberOr404(ctx, id);
}

export async function enableMember(
  ctx: AppContext,
  id: string,
  actor: string,
  client: Client,
): Promise<User> {
  await memberOr404(ctx, id);
  await inTransaction(ctx, (work) => enableIn(work, id, actor, client));
  return memberOr404(ctx, id);
}

/**
 * Makes the member an operator, or takes it back (the initial user's alone to decide). Views as a
 * member end either way (docs/decisions/0056): one of a new operator's account would hand its
 * holder the console, and a former operator's views go with the role.
 */
export async function setOperator(
  ctx: AppContext,
  id: string,
  operator: boolean,
  actor: string,
  client: Client,
): Promise<User> {
  const member = await memberOr404(ctx, id);
  if (!operator && member.is_initial_user === 1) {
    throw new ForbiddenError('The initial user is always an operator.');
  }
  await inTransaction(ctx, async (work) => {
    const { trx, publish } = work;
    await trx
      .updateTable('users')
      .set({ is_operator: operator ? 1 : 0, updated: nowString() })
      .where('id', '=', id)
      .execute();
    await recordEvent(trx, {
      type: operator ? 'admin_make_operator' : 'admin_remove_operator',
      userId: id,
      client,
      detail: { actor },
    });
    publish({ type: 'user-changed', userId: id });
    if (operator) {
      await endSessions(work, id, { views: true }, () => ({
        type: 'admin_view_as_ended',
        client,
        detail: { actor, reason: 'made_operator' },
      }));
    } else {
      await endViewsBy(work, id, () => ({
        type: 'admin_view_as_ended',
        client,
        detail: { actor: id, reason: 'operator_removed' },
      }));
    }
  });
  return memberOr404(ctx, id);
}

/**
 * The `count` of Give More Codes: a whole number from 1 to 50. The route's schema has read it: a
 * JSON number, or absent (a body that is not an object, or a count that is not a number, is a
 * loading error there, as the other bodies are read).
 */
export function readCodeCount(count: number | undefined): number {
  if (count === undefined) {
    throw new ValidationError(VALIDATION_FAILED, { count: fieldError.required() });
  }
  if (!Number.isInteger(count) || count < 1 || count > MAX_GIVEN_CODES) {
    throw new ValidationError(VALIDATION_FAILED, {
      count: fieldError.numberOutOfRange(1, MAX_GIVEN_CODES),
    });
  }
  return count;
}

export async function giveCodes(
  ctx: AppContext,
  id: string,
  count: number,
  actor: string,
  client: Client,
) {
  await memberOr404(ctx, id);
  const codes = await ctx.db.transaction().execute(async (trx) => {
    const codes = await createInviteCodes(trx, id, count);
    await recordEvent(trx, {
      type: 'admin_give_codes',
      userId: id,
      client,
      detail: { actor, count },
    });
    return codes;
  });
  publishCodes(ctx, id, 'create', codes);
  return codes;
}

/** Revokes an unused code; a used one is the record of who invited whom and stays (400). */
export async function revokeCode(
  ctx: AppContext,
  codeId: string,
  actor: string,
  client: Client,
): Promise<void> {
  const { result, ownerId } = await revokeUnusedCode(ctx.db, codeId);
  if (result === 'missing') throw new NotFoundError();
  if (result === 'used') throw new ValidationError('This invite code has already been used.');
  publishCodes(ctx, ownerId, 'delete', [{ id: codeId }]);
  await logged(ctx, 'admin_revoke_code', ownerId, actor, client, { code: codeId });
}

/** The single and the bulk Resend Verification's refusal. */
export const ALREADY_VERIFIED = "The member's email is already verified.";

export async function resendVerification(
  ctx: AppContext,
  id: string,
  actor: string,
  client: Client,
): Promise<void> {
  const member = await memberOr404(ctx, id);
  if (!(await resendVerificationMail(ctx, member, client, actor))) {
    throw new ValidationError(ALREADY_VERIFIED);
  }
}

/**
 * Resets the two-step sign-in of a member who lost their phone and recovery codes: two-step sign-in
 * off (seed, recovery codes, sign-ins waiting for a code) and every passkey removed; the password
 * and connected providers stay, and so do their sessions. The member is mailed a notice in the same
 * transaction. Refused when the passkeys are their only way in (no password, no provider): the
 * member sets a password through "Forgot password" first, which also proves they still hold the
 * mailbox. Over HTTP an operator may not reset their own (Settings does that, with a proof) nor the
 * initial user's (the command line can: whoever runs it holds the server).
 */
export async function resetTwoStep(
  ctx: AppContext,
  id: string,
  actor: string,
  client: Client,
): Promise<{ member: User; removed: RemovedSecondFactors }> {
  const member = await memberOr404(ctx, id);
  if (member.id === actor) {
    throw new ForbiddenError(
      'You cannot reset your own two-step sign-in: turn it off or remove passkeys in Settings.',
    );
  }
  if (member.is_initial_user === 1 && actor !== CLI_ACTOR) {
    throw new ForbiddenError(
      "The initial user's two-step sign-in can only be reset from the command line.",
    );
  }
  const removed = await inTransaction(ctx, async (work) => {
    const { trx } = work;
    const removed = await ctx.waysIn.keepOne(
      trx,
      id,
      async (): Promise<RemovedSecondFactors> => {
        const gone = await ctx.waysIn.remove(trx, id, ['passkeys', 'twoStep']);
        return { passkeys: gone.passkeys, twoStep: gone.twoStep > 0 };
      },
      PASSKEYS_ONLY_WAY_IN,
    );
    if (!removed.twoStep && removed.passkeys === 0) throw new ValidationError(NOTHING_TO_RESET);
    await recordEvent(trx, {
      type: 'admin_reset_two_step',
      userId: id,
      client,
      detail: { actor, twoStep: removed.twoStep, passkeys: removed.passkeys },
    });
    await queueNotice(ctx, trx, member, client, resetNotice(ctx.settings.appName, removed));
    work.publish({ type: 'user-changed', userId: id });
    work.mailQueued();
    return removed;
  });
  return { member: await memberOr404(ctx, id), removed };
}

/** What an operator's reset took away: the passkeys, and whether two-step sign-in was on. */
export interface RemovedSecondFactors {
  passkeys: number;
  twoStep: boolean;
}

/** The member's notice of a reset: what was removed, and how to set it up again. */
function resetNotice(appName: string, removed: RemovedSecondFactors): Notice {
  const { twoStep, passkeys } = removed;
  const parts = [
    ...(twoStep ? ['two-step sign-in is off (your recovery codes no longer work)'] : []),
    ...(passkeys === 1 ? ['your passkey was removed'] : []),
    ...(passkeys > 1 ? [`your ${passkeys} passkeys were removed`] : []),
  ];
  const germanParts = [
    ...(twoStep
      ? [
          'die Zwei-Schritt-Anmeldung ist aus (Ihre Wiederherstellungscodes funktionieren nicht mehr)',
        ]
      : []),
    ...(passkeys === 1 ? ['Ihr Passkey wurde entfernt'] : []),
    ...(passkeys > 1 ? [`Ihre ${passkeys} Passkeys wurden entfernt`] : []),
  ];
  return {
    kind: 'adminResetTwoStep',
    en: {
      subject: `Two-step sign-in was reset on your ${appName} account`,
      what: `An operator of ${appName} reset the sign-in of your account so that you can sign in without your phone: ${parts.join(' and ')}.`,
      outro: `Once you are signed in, turn two-step sign-in on again${passkeys > 0 ? ' and add your passkeys again' : ''} in Settings. ${appName} will never ask for your password or your codes by email.`,
    },
    de: {
      subject: `Die Zwei-Schritt-Anmeldung Ihres Kontos bei ${appName} wurde zurückgesetzt`,
      what: `Ein Betreiber von ${appName} hat die Anmeldung Ihres Kontos zurückgesetzt, damit Sie sich ohne Ihr Telefon anmelden können: ${germanParts.join(' und ')}.`,
      outro: `Schalten Sie die Zwei-Schritt-Anmeldung nach der Anmeldung in den Einstellungen wieder ein${passkeys > 0 ? ' und fügen Sie Ihre Passkeys wieder hinzu' : ''}. ${appName} wird Sie nie per E-Mail nach Ihrem Passwort oder Ihren Codes fragen.`,
    },
  };
}

/** Deletes the account exactly as its owner would (codes, queued mail, sessions). */
export async function deleteMember(
  ctx: AppContext,
  id: string,
  actor: string,
  client: Client,
): Promise<void> {
  const member = await memberOr404(ctx, id);
  if (member.is_initial_user === 1) throw new ForbiddenError('The initial user cannot be deleted.');
  await deleteAccount(ctx, member.id, client, actor);
}

export { logged as recordOperatorAction };
