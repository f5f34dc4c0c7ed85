import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { newId } from '../tools/random.js';
import { formatDate, fromNow, nowString } from '../tools/time.js';
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

type Db = Transaction<Database> | Kysely<Database>;

/** How long the delivery log is kept (the console shows the last 24 hours). */
const MAIL_LOG_KEEP_MS = 7 * 24 * 60 * 60_000;

/** The worker's note of one delivery attempt. */
export async function logDelivery(db: Db, outcome: 'sent' | 'failed'): Promise<void> {
  await db.insertInto('mail_log').values({ id: newId(), created: nowString(), outcome }).execute();
}

/** Deletes delivery notes older than a week (housekeeping). */
export async function deleteOldMailLog(db: Db): Promise<number> {
  const result = await db
    .deleteFrom('mail_log')
    .where('created', '<', fromNow(-MAIL_LOG_KEEP_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Mail still in the outbox, oldest due first: who to, what, how it went. Never a body or link. */
export async function listQueuedMail(db: Db, page: { limit: number; offset: number }) {
  const rows = await db
    .selectFrom('outbox')
    .select([
      'id',
      'user_id',
      'recipient',
      'subject',
      'attempts',
      'last_error',
      'next_attempt_at',
      'created',
    ])
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    userId: r.user_id,
    recipient: r.recipient,
    subject: r.subject,
    attempts: r.attempts,
    lastError: r.last_error,
    nextAttempt: r.next_attempt_at,
    created: r.created,
  }));
}

/** Queued and failing (tried at least once) mails; sent and failed attempts in the last 24 hours. */
export async function mailStats(db: Db) {
  const queue = await db
    .selectFrom('outbox')
    .select((eb) => [
      eb.fn.countAll<number>().as('queued'),
      eb.fn.sum<number>(eb.case().when('attempts', '>', 0).then(1).else(0).end()).as('failing'),
    ])
    .executeTakeFirstOrThrow();
  const log = await db
    .selectFrom('mail_log')
    .select(['outcome', (eb) => eb.fn.countAll<number>().as('n')])
    .where('created', '>', fromNow(-24 * 60 * 60_000))
    .groupBy('outcome')
    .execute();
  const count = (outcome: string) => Number(log.find((r) => r.outcome === outcome)?.n ?? 0);
  return {
    queued: Number(queue.queued),
    failing: Number(queue.failing ?? 0),
    sentLast24h: count('sent'),
    failedLast24h: count('failed'),
  };
}

/** Makes a queued mail due now (Retry Now); its user id, or undefined when it is not queued. */
export async function retryMailNow(
  db: Db,
  id: string,
): Promise<{ userId: string | null } | undefined> {
  return db
    .updateTable('outbox')
    .set({ next_attempt_at: nowString() })
    .where('id', '=', id)
    .returning(['user_id as userId'])
    .executeTakeFirst();
}
