import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId } from '../tools/random.js';
import { formatDate, nowString } from '../tools/time.js';
import type { MailContent } from './compose.js';

/**
 * Queues a mail in the same transaction as the change that causes it: if the change commits the
 * mail will be sent (eventually), if it rolls back there is no mail.
 */
export async function enqueueMail(
  trx: Transaction<Database> | Kysely<Database>,
  mail: MailContent & {
    to: string;
    userId: string | null;
    /** What the mail is, for the operator and the logs. */
    kind: string;
    /** When its link dies (the token's expiry): the worker does not send it after that. */
    expiresAt?: Date;
  },
): Promise<void> {
  const now = nowString();
  await trx
    .insertInto('outbox')
    .values({
      id: newId(),
      user_id: mail.userId,
      recipient: mail.to,
      subject: mail.subject,
      text_body: mail.text,
      html_body: mail.html,
      next_attempt_at: now,
      locked_until: null,
      last_error: null,
      created: now,
      kind: mail.kind,
      expires_at: mail.expiresAt ? formatDate(mail.expiresAt) : null,
      expired_at: null,
    })
    .execute();
}

/** Drops the mail still queued for a user (their account is being deleted). */
export async function deleteQueuedMailOf(
  trx: Transaction<Database>,
  userId: string,
): Promise<void> {
  await trx.deleteFrom('outbox').where('user_id', '=', userId).execute();
}
