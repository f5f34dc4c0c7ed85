import fs from 'node:fs';
import type { AppContext } from '../core/context.js';
import { type CronSchedule, parseCron } from '../tools/cron-schedule.js';
import { activeBackup, backupPath, createBackup, generatedName, listBackups } from './store.js';

/**
 * Scheduled backups, as PocketBase's: at every minute the settings' `backups.cron` names (UTC), a
 * backup named `@auto_pb_backup_<app name>_<time>.zip`, and then only the newest
 * `backups.cronMaxKeep` of those are kept (the others, uploaded or made by hand, are never
 * removed). The schedule is read from the settings at each minute, so a change applies at once,
 * on every instance. With several instances on PostgreSQL, each makes the backup on its own disk.
 */

export const AUTO_PREFIX = '@auto_pb_backup_';

/** Starts the minute timer; the returned function stops it (and waits for a backup under way). */
export function startBackupSchedule(ctx: AppContext): () => Promise<void> {
  let parsed: { expression: string; schedule: CronSchedule | undefined } | undefined;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const scheduleOf = (expression: string): CronSchedule | undefined => {
    if (parsed?.expression !== expression) {
      let schedule: CronSchedule | undefined;
      try {
        schedule = parseCron(expression);
      } catch {
        // Saved settings are checked; one that is not an expression schedules nothing.
      }
      parsed = { expression, schedule };
    }
    return parsed.schedule;
  };

  const tick = (at: Date) => {
    const expression = ctx.settings.backupsCron;
    if (!expression || running || activeBackup() !== undefined) return;
    if (!scheduleOf(expression)?.isDue(at)) return;
    running = runScheduledBackup(ctx, at).finally(() => (running = undefined));
  };

  const next = () => {
    if (stopped) return;
    const now = Date.now();
    // A little past the start of the next minute, so the minute read is that one.
    timer = setTimeout(
      () => {
        tick(new Date());
        next();
      },
      60_000 - (now % 60_000) + 50,
    );
    timer.unref();
  };
  next();

  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

/** One scheduled backup, then the oldest scheduled ones beyond the count to keep are deleted. */
export async function runScheduledBackup(ctx: AppContext, at = new Date()): Promise<void> {
  const key = generatedName(ctx, AUTO_PREFIX, at);
  try {
    await createBackup(ctx, key);
    ctx.log.info({ key }, 'scheduled backup written');
  } catch (err) {
    ctx.log.error({ err, key }, 'scheduled backup failed');
    return;
  }
  const keep = ctx.settings.backupsCronMaxKeep;
  const scheduled = listBackups(ctx).filter((b) => b.key.startsWith(AUTO_PREFIX));
  for (const old of scheduled.slice(Math.max(keep, 1))) {
    const file = backupPath(ctx, old.key);
    if (file) fs.rmSync(file, { force: true });
  }
}
