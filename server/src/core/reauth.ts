import type { Session, User } from '../db/schema.js';
import { formatDate } from '../tools/time.js';
import { recordEvent } from './audit.js';
import type { AppContext, Client } from './context.js';
import { CONFIRM_IT_IS_YOU, ForbiddenError, NOT_WHILE_VIEWING_AS } from './errors.js';
import type { Auth } from './users.js';

/**
 * "Confirm it's you" (docs/decisions/0046), after GitHub's sudo mode: a bearer token alone is not
 * enough for what hands the account over (a new passkey, a provider, two-step settings, the email,
 * the export, deleting it, ending the other sessions, an operator's action on another member). A
 * session is fresh for REAUTH_MINUTES after its sign-in or after the member proved it is them
 * again (POST /api/gatehouse/reauth); outside that window those actions answer 403
 * `Confirm it's you to continue.` and change nothing.
 */

/**
 * Epoch ms until which the session is fresh (0: it never proved anything, say a legacy row). An
 * operator viewing as a member never is (docs/decisions/0056): nobody proved to be the member.
 */
export function freshUntil(
  ctx: AppContext,
  session: Pick<Session, 'confirmed_at'> & Partial<Pick<Session, 'impersonated_by'>>,
): number {
  if (!session.confirmed_at || session.impersonated_by) return 0;
  const at = Date.parse(`${session.confirmed_at.replace(' ', 'T')}`);
  return Number.isNaN(at) ? 0 : at + ctx.config.reauthMinutes * 60_000;
}

/**
 * Refuses (403) unless the session is fresh. An operator viewing as a member gets its own refusal,
 * not "Confirm it's you": no confirmation of theirs can stand in for the member's.
 */
export function assertFresh(ctx: AppContext, auth: Auth): Auth {
  notWhileViewingAs(auth);
  if (freshUntil(ctx, auth.session) <= Date.now()) throw new ForbiddenError(CONFIRM_IT_IS_YOU);
  return auth;
}

/**
 * Refuses (403) an operator viewing as a member (docs/decisions/0056) what only the member may do
 * though it needs no fresh session: proving it is them, changing the password, renaming or removing
 * a passkey, signing out their other devices.
 */
export function notWhileViewingAs(auth: Auth): Auth {
  if (auth.session.impersonated_by) throw new ForbiddenError(NOT_WHILE_VIEWING_AS);
  return auth;
}

/**
 * One way a signed-in member proves again that it is them, offered by the feature that owns it
 * (accounts/: the password; two-step/: a code; passkeys/: a passkey) and put together in app.ts.
 */
export interface Proof {
  /** The body field that carries it: `password`, `code` or `response` (a passkey assertion). */
  field: 'password' | 'code' | 'response';
  /** Whether the member has this way (the dialog offers only those). */
  available(ctx: AppContext, user: User): Promise<boolean>;
  /**
   * Checks `value` for the member. A wrong proof counts like a failed sign-in and throws a
   * ValidationError with this field's error; a right one returns.
   */
  check(ctx: AppContext, user: User, value: unknown, client: Client): Promise<void>;
}

/**
 * Marks the session fresh from now (a right proof, or a provider the member is linked to signed
 * them in again), records it, and tells every instance's read cache. Returns the new end.
 */
export async function confirmSession(
  ctx: AppContext,
  auth: Auth,
  client: Client,
  method: string,
): Promise<number> {
  const now = new Date();
  await ctx.db
    .updateTable('sessions')
    .set({ confirmed_at: formatDate(now) })
    .where('id', '=', auth.session.id)
    .execute();
  await recordEvent(ctx.db, {
    type: 'reauthenticated',
    userId: auth.user.id,
    client,
    detail: { method },
  });
  ctx.events.publish({ type: 'session-changed', userId: auth.user.id, sessionId: auth.session.id });
  return freshUntil(ctx, { confirmed_at: formatDate(now) });
}
