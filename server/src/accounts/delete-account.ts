import type { AppContext } from '../core/context.js';
import { deleteCodesOf } from '../invites/service.js';
import { deleteQueuedMailOf } from '../mail/outbox.js';

/** Deletes the account, its invite codes and its queued mail. People it invited are unaffected. */
export async function deleteAccount(ctx: AppContext, userId: string): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await deleteQueuedMailOf(trx, userId);
    await deleteCodesOf(trx, userId);
    await trx.deleteFrom('users').where('id', '=', userId).execute();
  });
}
