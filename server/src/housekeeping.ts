import { deleteExpiredSignInCodes } from './accounts/sign-in-code.js';
import { deleteOldEvents } from './audit/queries.js';
import type { AppContext } from './core/context.js';
import type { Crons } from './core/cron.js';
import { deleteExpiredMfa } from './core/second-step.js';
import { deleteExpiredChallenges } from './passkeys/challenges.js';
import { deleteExpiredSessions } from './core/sessions.js';
import { deleteLogsBefore, type LogStore } from './logs/store.js';
import { deleteOldMailLog } from './mail/outbox.js';
import { deleteExpiredRecords, deleteRetiredKeys } from './oidc/service.js';
import { fromNow } from './tools/time.js';

const DAY_MS = 24 * 60 * 60_000;

/**
 * The clean-up no request waits for, as scheduled jobs (core/cron.ts; UTC, at different minutes
 * so that they do not all start at once). Each deletes rows already refused or past their
 * retention, idempotently and in batches; each run is recorded in the request log with what it
 * deleted, and an operator can run one now (POST /api/crons/{id}).
 *
 * | job                         | when                | deletes                                          |
 * | --------------------------- | ------------------- | ------------------------------------------------ |
 * | `sessions_cleanup`          | hourly, at :00      | sessions past their absolute end                 |
 * | `challenges_cleanup`        | hourly, at :10      | sign-ins under way past their end: second steps, |
 * |                             |                     | passkey challenges, emailed sign-in codes        |
 * | `security_events_retention` | hourly, at :20      | security events past AUDIT_RETENTION_DAYS        |
 * | `mail_log_cleanup`          | hourly, at :30      | the delivery counts past a day                   |
 * | `logs_retention`            | every 6 hours, :40  | request log entries past logs.maxDays            |
 * | `oidc_cleanup`              | hourly, at :50      | the OpenID provider's records past their end     |
 * |                             |                     | (codes, tokens, grants, sign-ins under way) and  |
 * |                             |                     | signing keys retired long enough ago             |
 *
 * The OpenID provider brings a job of its own, `oidc_sessions_cleanup` (oidc/routes.ts).
 */
export function registerHousekeeping(crons: Crons, ctx: AppContext, logs: LogStore): void {
  crons.add('sessions_cleanup', '0 * * * *', async () => ({
    sessions: await deleteExpiredSessions(ctx.db),
  }));
  crons.add('challenges_cleanup', '10 * * * *', async () => ({
    secondSteps: await deleteExpiredMfa(ctx.db),
    passkeyChallenges: await deleteExpiredChallenges(ctx.db),
    signInCodes: await deleteExpiredSignInCodes(ctx.db),
  }));
  crons.add('security_events_retention', '20 * * * *', async () => ({
    events: await deleteOldEvents(ctx),
  }));
  crons.add('mail_log_cleanup', '30 * * * *', async () => ({
    mailLog: await deleteOldMailLog(ctx.db),
  }));
  // PocketBase's __pbLogsCleanup__ runs every 6 hours too. With logs.maxDays (LOGS_RETENTION_DAYS)
  // at 0 nothing is logged, and this deletes what an earlier setting kept.
  crons.add('logs_retention', '40 */6 * * *', async () => ({
    logs: await deleteLogsBefore(logs, fromNow(-ctx.settings.logsMaxDays * DAY_MS)),
  }));
  // The provider refuses its records past their end already; this keeps the table small. A key
  // retired longer ago than an ID token lives signs nothing anyone still checks (decision 0062).
  crons.add('oidc_cleanup', '50 * * * *', async () => ({
    oidcRecords: await deleteExpiredRecords(ctx.db),
    oidcKeys: await deleteRetiredKeys(ctx.db),
  }));
}
