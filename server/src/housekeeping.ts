import { deleteExpiredSignInCodes } from './accounts/sign-in-code.js';
import { deleteOldEvents } from './audit/queries.js';
import type { AppContext } from './core/context.js';
import { deleteExpiredMfa } from './core/second-step.js';
import { deleteExpiredChallenges } from './passkeys/challenges.js';
import { deleteExpiredSessions } from './core/sessions.js';
import { deleteOldMailLog } from './mail/outbox.js';

const EVERY_MS = 60 * 60_000;

/**
 * Periodic clean-up that no request waits for: security events past AUDIT_RETENTION_DAYS and
 * sessions past their absolute end (already refused; this only frees the rows). Runs a minute
 * after start and then hourly; with several instances each runs it, which is harmless (the
 * deletes are idempotent and batched).
 */
export function startHousekeeping(ctx: AppContext): () => Promise<void> {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= (async () => {
      try {
        const events = await deleteOldEvents(ctx);
        const sessions = await deleteExpiredSessions(ctx.db);
        await deleteExpiredMfa(ctx.db);
        await deleteExpiredChallenges(ctx.db);
        await deleteExpiredSignInCodes(ctx.db);
        await deleteOldMailLog(ctx.db);
        if (events || sessions)
          ctx.log.info({ events, sessions }, 'housekeeping: old rows deleted');
      } catch (err) {
        ctx.log.warn({ err }, 'housekeeping failed; will try again');
      } finally {
        running = undefined;
      }
    })();
  };
  const first = setTimeout(run, 60_000);
  const timer = setInterval(run, EVERY_MS);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
