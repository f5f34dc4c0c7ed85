import type { Transaction } from 'kysely';
import type { AppContext, Client } from '../core/context.js';
import type { Database, User } from '../db/schema.js';
import { enqueueMail } from '../mail/service.js';
import { type Notice, securityNotice } from './mails.js';

/**
 * Queues a security notice to the member, in the transaction of the change it tells of: what
 * changed, when, from which IP and browser, and what to do if it was not them, in the member's
 * language (docs/decisions/0072). Every credential change sends one (password, email, two-step,
 * passkeys); see docs/decisions/0022.
 */
export async function queueNotice(
  ctx: AppContext,
  trx: Transaction<Database>,
  to: Pick<User, 'id' | 'email' | 'language'>,
  client: Client,
  notice: Notice,
): Promise<void> {
  const { appName, appUrl } = ctx.settings;
  const mail = securityNotice(to.language, appName, appUrl, notice[to.language], {
    at: new Date(),
    ...client,
  });
  await enqueueMail(trx, { ...mail, to: to.email, userId: to.id, kind: notice.kind });
}
