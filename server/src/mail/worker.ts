import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database, OutboxMail } from '../db/schema.js';
import { alwaysShown } from '../logger.js';
import { redactEmail } from '../tools/email.js';
import { fromNow, nowString } from '../tools/time.js';
import { logDelivery } from './outbox.js';
import type { MailTransport } from './transport.js';

const BATCH = 20;
const LOCK_MS = 2 * 60_000;
const MAX_BACKOFF_MS = 60 * 60_000;
/** How long a row whose link expired unsent is kept for the operator before it is deleted. */
export const EXPIRED_KEPT_MS = 7 * 24 * 60 * 60_000;

/**
 * Sends the outbox. Woken right after a commit that queued mail, and every `pollMs` for retries
 * and for mail queued by other instances. A row is claimed with a conditional update (so several
 * instances never send the same row twice at once), deleted once sent, and on failure kept with
 * an exponential backoff: a mail server that is down delays mail, it never loses it. A row whose
 * link has expired (`expires_at`) is never sent: it is marked `expired_at`, its bodies (holding the
 * dead link) are emptied, and it is kept for the operator for EXPIRED_KEPT_MS, then deleted
 * (docs/decisions/0019).
 */
export class MailWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly transport: MailTransport,
    private readonly options: {
      /** The From of each mail, asked when it is sent (the settings may change it). */
      from: () => string;
      pollMs: number;
      retryBaseMs: number;
      log: Logger;
    },
  ) {}

  start(): void {
    this.stopped = false;
    this.notify();
  }

  /** Run a pass now (or right after the one under way). */
  notify(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.notify();
      } else {
        this.timer = setTimeout(() => this.notify(), this.options.pollMs);
        this.timer.unref();
      }
    });
  }

  /** Stops polling and waits for the pass under way (a mail being sent is finished, not cut). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    this.transport.close();
  }

  private async pass(): Promise<void> {
    try {
      await this.expire();
      for (;;) {
        const now = nowString();
        const due = await this.db
          .selectFrom('outbox')
          .selectAll()
          .where('next_attempt_at', '<=', now)
          .where('expired_at', 'is', null)
          .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
          .orderBy('next_attempt_at')
          .limit(BATCH)
          .execute();
        for (const mail of due) {
          if (this.stopped) return;
          await this.deliver(mail);
        }
        if (due.length < BATCH || this.stopped) return;
      }
    } catch (error) {
      this.options.log.error({ err: error }, 'mail worker pass failed');
    }
  }

  /** Marks the unlocked rows whose link has expired, and deletes those kept long enough. */
  private async expire(): Promise<void> {
    const now = nowString();
    const expired = await this.db
      .updateTable('outbox')
      .set({ expired_at: now, locked_until: null, text_body: '', html_body: '' })
      .where('expires_at', '<=', now)
      .where('expired_at', 'is', null)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .returning(['id', 'kind', 'recipient', 'attempts', 'last_error'])
      .execute();
    for (const mail of expired) {
      this.options.log.warn(
        { ...describe(mail), attempts: mail.attempts, err: mail.last_error },
        'mail not sent: its link expired first',
      );
    }
    await this.db
      .deleteFrom('outbox')
      .where('expired_at', '<=', fromNow(-EXPIRED_KEPT_MS))
      .execute();
  }

  private async deliver(mail: OutboxMail): Promise<void> {
    const now = nowString();
    const claimed = await this.db
      .updateTable('outbox')
      .set({ locked_until: fromNow(LOCK_MS) })
      .where('id', '=', mail.id)
      .where('expired_at', 'is', null)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return;
    // Expired between the select and the claim: release it for expire() (next pass), unsent.
    if (mail.expires_at !== null && mail.expires_at <= nowString()) {
      await this.db
        .updateTable('outbox')
        .set({ locked_until: null })
        .where('id', '=', mail.id)
        .execute();
      return;
    }

    try {
      await this.transport.send({
        from: this.options.from(),
        to: mail.recipient,
        subject: mail.subject,
        text: mail.text_body,
        html: mail.html_body,
      });
    } catch (error) {
      const attempts = mail.attempts + 1;
      const backoff = Math.min(this.options.retryBaseMs * 2 ** (attempts - 1), MAX_BACKOFF_MS);
      const message = error instanceof Error ? error.message : String(error);
      await this.db
        .updateTable('outbox')
        .set({
          attempts,
          next_attempt_at: fromNow(backoff),
          locked_until: null,
          last_error: message.slice(0, 500),
        })
        .where('id', '=', mail.id)
        .execute();
      await logDelivery(this.db, 'failed');
      this.options.log.warn(
        { ...describe(mail), attempts, retryInMs: backoff, err: message },
        'mail not sent; will retry',
      );
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('outbox').where('id', '=', mail.id).execute();
      await logDelivery(trx, 'sent');
    });
    if (this.transport.kind === 'console') {
      // SMTP_URL is not set: this line is the mail, shown whatever LOG_LEVEL says.
      alwaysShown(this.options.log).info(
        { ...describe(mail), subject: mail.subject, link: actionLink(mail.text_body) },
        'mail printed (SMTP_URL is not set)',
      );
    } else {
      this.options.log.info({ ...describe(mail), subject: mail.subject }, 'mail sent');
    }
  }
}

/** What every log line about a mail says: which row, which kind, to whom (redacted). */
function describe(mail: Pick<OutboxMail, 'id' | 'kind' | 'recipient'>) {
  return { mailId: mail.id, kind: mail.kind, to: redactEmail(mail.recipient) };
}

/** The mail's link: the text part has it on a line of its own (mail/compose.ts). */
function actionLink(text: string): string {
  return /^\s*(https?:\/\/\S+)\s*$/m.exec(text)?.[1] ?? '';
}
