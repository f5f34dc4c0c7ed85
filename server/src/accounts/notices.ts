import type { Transaction } from 'kysely';
import type { AppContext, Client } from '../core/context.js';
import type { Database, User } from '../db/schema.js';
import { enqueueMail } from '../mail/service.js';
import { securityNotice } from './mails.js';

/**
 * Queues a security notice to the member, in the transaction of the change it tells of: what
 * changed, when, from which IP and browser, and what to do if it was not them. Every credential
 * change sends one (password, email, two-step, passkeys); see docs/decisions/0022.
 */
export async function queueNotice(
  ctx: AppContext,
  trx: Transaction<Database>,
  to: Pick<User, 'id' | 'email'>,
  client: Client,
  notice: { kind: string; subject: string; what: string; outro?: string },
): Promise<void> {
  const { appName, appUrl } = ctx.settings;
  const mail = securityNotice(
    appName,
    appUrl,
    {
      subject: notice.subject,
      what: notice.what,
      outro: notice.outro ?? `${appName} will never ask for your password or your codes by email.`,
    },
    { at: new Date(), ...client },
  );
  await enqueueMail(trx, { ...mail, to: to.email, userId: to.id, kind: notice.kind });
}
