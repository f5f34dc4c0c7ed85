import fs from 'node:fs';
import type { AppContext } from '../core/context.js';
import type { CronTrigger, Crons } from '../core/cron.js';
import { backupPath, createBackup, generatedName, listBackups } from './store.js';

/**
 * Scheduled backups, as PocketBase's: a job of the one scheduler (core/cron.ts) named as
 * PocketBase names it, `__pbAutoBackup__`, at the settings' `backups.cron` (UTC), there while the
 * setting is not empty. Each run makes a backup named `@auto_pb_backup_<app name>_<time>.zip`, and
 * then only the newest `backups.cronMaxKeep` of those are kept (the others, uploaded or made by
 * hand, are never removed).
 *
 * The job follows the setting as it changes: each time the settings are read again (a change on
 * this instance or another one, a restore), the job is added, moved to the new schedule or
 * removed. With several instances on PostgreSQL each scheduled run is claimed, as every job's:
 * one instance makes the backup, on its own disk. "Run now" (POST /api/crons/__pbAutoBackup__)
 * makes one at once, as in PocketBase.
 */

export const AUTO_PREFIX = '@auto_pb_backup_';

/** PocketBase's id of the job (core/base_backup.go). */
export const BACKUP_JOB = '__pbAutoBackup__';

/** Keeps the job in step with `backups.cron` from now on. */
export function registerBackupSchedule(crons: Crons, ctx: AppContext): void {
  const sync = () => {
    const expression = ctx.settings.backupsCron;
    const current = crons.list().find((job) => job.id === BACKUP_JOB)?.expression ?? '';
    // The same schedule: the job, and a run under way, stay as they are.
    if (expression === current) return;
    if (!expression) {
      crons.remove(BACKUP_JOB);
      return;
    }
    try {
      crons.add(BACKUP_JOB, expression, (trigger) => runScheduledBackup(ctx, trigger));
    } catch (err) {
      // Saved settings are checked; one that is not an expression schedules nothing.
      crons.remove(BACKUP_JOB);
      ctx.log.warn(
        { err, expression },
        'backups.cron is not a cron expression: no scheduled backups',
      );
    }
  };
  sync();
  ctx.settings.onReload(sync);
}

/**
 * One scheduled backup, then the oldest scheduled ones beyond the count to keep are deleted. A
 * failed backup throws: the run is recorded as failed (in the request log, level 8) and logged.
 */
export async function runScheduledBackup(
  ctx: AppContext,
  trigger: CronTrigger,
): Promise<{ backup: string; removed: number }> {
  const key = generatedName(
    ctx,
    AUTO_PREFIX,
    trigger.kind === 'schedule' ? trigger.scheduled : new Date(),
  );
  await createBackup(ctx, key);
  ctx.log.info({ key }, 'scheduled backup written');
  const keep = ctx.settings.backupsCronMaxKeep;
  const scheduled = listBackups(ctx).filter((b) => b.key.startsWith(AUTO_PREFIX));
  let removed = 0;
  for (const old of scheduled.slice(Math.max(keep, 1))) {
    const file = backupPath(ctx, old.key);
    if (!file) continue;
    fs.rmSync(file, { force: true });
    removed += 1;
  }
  return { backup: key, removed };
}
