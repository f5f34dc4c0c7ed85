import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { ForbiddenError, ValidationError, VALIDATION_FAILED } from '../core/errors.js';
import { assertFresh } from '../core/reauth.js';
import { openViewingSession, sessionToken } from '../core/sessions.js';
import { inTransaction } from '../core/transaction.js';
import { type Auth, isOperator, userRecord } from '../core/users.js';
import { memberOr404 } from './members.js';

/**
 * View as member (PocketBase's impersonate; docs/decisions/0056): an operator gets a short token
 * of a member's account, for support. It is a session of the member marked with the operator's
 * id, that auth-refresh does not renew, that is never fresh (what needs the member's confirmation
 * stays theirs), and that is no sign-in of theirs. Both sides' security logs record it.
 */

export const NOT_YOURSELF = 'You cannot view as yourself.';
export const NOT_THE_INITIAL_USER = 'You cannot view as the initial user.';
export const NOT_AN_OPERATOR = 'You cannot view as an operator: only as a member.';
export const NOT_A_DISABLED_MEMBER = 'You cannot view as a disabled member: enable them first.';

/**
 * PocketBase's `duration` (seconds; 0 or absent: the default). A negative one is its validation
 * error; the route's schema has refused anything but a number.
 */
function readDuration(duration: number | undefined): number {
  const seconds = duration ?? 0;
  if (seconds < 0) {
    throw new ValidationError(VALIDATION_FAILED, {
      duration: {
        code: 'validation_min_greater_equal_than_required',
        message: 'Must be no less than 0.',
        params: { threshold: 0 },
      },
    });
  }
  return Math.floor(seconds);
}

/**
 * Opens the view, checking in PocketBase's order and then Gatehouse's: the member must exist
 * (404), the duration be readable (400), the member be neither the operator, the initial user,
 * another operator nor disabled (403 naming which), and the operator's session fresh, as for every
 * action on another member (403 `Confirm it's you to continue.`; asked last, so that a view that
 * would be refused anyway asks for no confirmation). Returns PocketBase's auth answer.
 */
export async function viewAsMember(
  ctx: AppContext,
  auth: Auth,
  memberId: string,
  duration: number | undefined,
  client: Client,
) {
  const operator = auth.user;
  const member = await memberOr404(ctx, memberId);
  const seconds = readDuration(duration);
  if (member.id === operator.id) throw new ForbiddenError(NOT_YOURSELF);
  if (member.is_initial_user === 1) throw new ForbiddenError(NOT_THE_INITIAL_USER);
  if (isOperator(member)) throw new ForbiddenError(NOT_AN_OPERATOR);
  if (member.disabled === 1) throw new ForbiddenError(NOT_A_DISABLED_MEMBER);
  assertFresh(ctx, auth);
  const session = await inTransaction(ctx, async (work) => {
    const session = await openViewingSession(work, member.id, operator.id, client, seconds);
    await recordEvent(work.trx, {
      type: 'admin_view_as',
      userId: member.id,
      client,
      detail: { actor: operator.id, session: session.id },
    });
    await recordEvent(work.trx, {
      type: 'viewed_as',
      userId: operator.id,
      client,
      detail: { member: member.id, email: member.email, session: session.id },
    });
    return session;
  });
  return {
    token: sessionToken(ctx, member, session),
    record: userRecord(member, { withEmail: true }),
  };
}
