import { recordEvent } from '../core/audit.js';
import type { AppContext, Client } from '../core/context.js';
import { endViewsBy } from '../core/sessions.js';
import { inTransaction } from '../core/transaction.js';
import { findUserById, userRecord } from '../core/users.js';
import { deleteCodesOf } from '../invites/service.js';
import { deleteQueuedMailOf } from '../mail/service.js';
import { filesOf } from './avatars.js';

/**
 * Deletes the account, its invite codes, its queued mail, (by cascade) its sessions, and its files
 * (the avatar and its thumbs, once the row is gone). People it invited are unaffected. The security log keeps the deletion: `account_deleted`, or
 * `admin_delete` with the operator's id (or `cli`) as `actor` when an operator deleted it.
 */
export async function deleteAccount(
  ctx: AppContext,
  userId: string,
  client: Client,
  actor?: string,
): Promise<void> {
  const user = await findUserById(ctx, userId);
  await inTransaction(ctx, async (work) => {
    const { trx, publish } = work;
    // An operator's open views as members end with their account (docs/decisions/0056).
    await endViewsBy(work, userId, () => ({
      type: 'admin_view_as_ended',
      client,
      detail: { actor: userId, reason: 'operator_deleted' },
    }));
    await deleteQueuedMailOf(trx, userId);
    await deleteCodesOf(trx, userId);
    await trx.deleteFrom('users').where('id', '=', userId).execute();
    await recordEvent(
      trx,
      actor
        ? { type: 'admin_delete', userId, client, detail: { actor } }
        : { type: 'account_deleted', userId, client },
    );
    // Realtime: `delete` on users/{id}, then the member's streams end (on every instance); the
    // sessions went with the row (by cascade).
    if (user) {
      publish({
        type: 'record',
        collection: 'users',
        action: 'delete',
        record: userRecord(user, { withEmail: true }),
        userId,
      });
    }
    publish({ type: 'session-ended', userId, sessionId: null });
  });
  // After the commit: nothing can name the files any more. On PostgreSQL they went with the row.
  try {
    await filesOf(ctx).removeAll(userId);
  } catch (error) {
    ctx.log.error({ err: error, userId }, "removing a deleted account's files failed");
  }
}
