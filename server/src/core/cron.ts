import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { type CronSchedule, parseCron } from '../tools/cron-schedule.js';
import { formatDate } from '../tools/time.js';

/**
 * The scheduled jobs (PocketBase's `app.Cron()`): each has an id and a cron expression read as
 * PocketBase reads one (tools/cron-schedule.ts: five fields or a macro, UTC; jobs in code may give
 * seconds first), and runs at every time its expression names. The operator lists them and runs
 * one now (GET /api/crons, POST /api/crons/{id}). This is the one scheduler: housekeeping.ts's
 * clean-ups and the settings' backup schedule (backups/schedule.ts, `__pbAutoBackup__`) are jobs.
 *
 * Registering: `crons.add(id, expression, run)` at composition (server.ts registers the
 * housekeeping jobs, housekeeping.ts, and the jobs a feature brings); adding an id again replaces
 * that job and its schedule, as in PocketBase, so a job whose schedule is a setting is re-added
 * when the setting changes. `run` gets how it was started and may return a summary (counts of
 * rows deleted…), which the run's record carries.
 *
 * Several instances (PostgreSQL): each keeps its own timers, and before a scheduled run claims
 * that run in the `cron_claims` table (one row per job holding the last scheduled time claimed;
 * migration 0014): the instance whose conditional update moves it forward runs the job, the
 * others skip it. The claim is keyed by the scheduled time, not the clock's reading, so instances
 * whose clocks differ by a few seconds still run a schedule once. On SQLite there is one instance
 * and nothing to claim. A run asked for by an operator is not claimed: it runs on the instance
 * asked, at once (PocketBase answers before it ends).
 */

/** How a run was started: its scheduled time, or an operator's "run now". */
export type CronTrigger = { kind: 'schedule'; scheduled: Date } | { kind: 'manual' };

export type CronRun = (trigger: CronTrigger) => Promise<Record<string, unknown> | void>;

/** What a job's run did, for its record (the request log's cron rows). */
export interface CronRunReport {
  id: string;
  trigger: CronTrigger;
  /** How long it took, in milliseconds. */
  ms: number;
  /** What `run` returned. */
  result?: Record<string, unknown>;
  error?: unknown;
}

export interface CronJobInfo {
  id: string;
  expression: string;
}

interface Job extends CronJobInfo {
  schedule: CronSchedule;
  run: CronRun;
  timer?: NodeJS.Timeout;
  /** The run under way, if any: a job never overlaps itself. */
  running?: Promise<void>;
}

export interface CronsOptions {
  /** PostgreSQL: instances share the database, and a scheduled run is claimed first. */
  db?: Kysely<Database>;
  log: Logger;
  /** Told of every run that ended (after `run` resolved or threw). */
  onRun?: (report: CronRunReport) => void;
}

/** The longest a timer waits before checking again (Node's timers hold at most ~24.8 days). */
const MAX_WAIT_MS = 60 * 60_000;

/** The cron_claims table, which only PostgreSQL has (migration 0014). */
type ClaimsTable = { cron_claims: { job: string; scheduled: string } };

export class Crons {
  private readonly jobs = new Map<string, Job>();
  /** Every run under way, of the jobs there are and of jobs replaced meanwhile. */
  private readonly inFlight = new Set<Promise<void>>();
  private started = false;

  constructor(private readonly options: CronsOptions) {}

  /**
   * Adds the job `id`, or replaces the job of that id (its schedule and what it runs). Throws a
   * CronExpressionError when `expression` is not a cron expression.
   */
  add(id: string, expression: string, run: CronRun): void {
    const schedule = parseCron(expression, { seconds: true });
    const old = this.jobs.get(id);
    if (old) clearTimeout(old.timer);
    const job: Job = { id, expression, schedule, run };
    this.jobs.set(id, job);
    if (this.started) this.arm(job);
  }

  /** Removes the job `id` (a run under way finishes). */
  remove(id: string): void {
    const job = this.jobs.get(id);
    if (!job) return;
    clearTimeout(job.timer);
    this.jobs.delete(id);
  }

  /** The jobs, sorted as PocketBase lists them: by id, its own `__pb…` jobs last. */
  list(): CronJobInfo[] {
    return [...this.jobs.values()]
      .map(({ id, expression }) => ({ id, expression }))
      .sort((a, b) => {
        const ap = a.id.startsWith('__pb');
        const bp = b.id.startsWith('__pb');
        if (ap !== bp) return ap ? 1 : -1;
        return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
      });
  }

  /**
   * Starts the job `id` now, without waiting for it (false: no such job). A run under way is
   * waited for first, so the job still never overlaps itself.
   */
  runNow(id: string): boolean {
    const job = this.jobs.get(id);
    if (!job) return false;
    const previous = job.running ?? Promise.resolve();
    this.track(
      job,
      previous.then(() => this.execute(job, { kind: 'manual' })),
    );
    return true;
  }

  /** Arms every job's timer. */
  start(): void {
    this.started = true;
    for (const job of this.jobs.values()) this.arm(job);
  }

  /** Stops the timers and waits for the runs under way. */
  async stop(): Promise<void> {
    this.started = false;
    for (const job of this.jobs.values()) clearTimeout(job.timer);
    await Promise.all(this.inFlight);
  }

  /** Keeps `run` as the job's run under way until it ends (it never rejects). */
  private track(job: Job, run: Promise<void>): void {
    const tracked = run.finally(() => {
      this.inFlight.delete(tracked);
      if (job.running === tracked) job.running = undefined;
    });
    job.running = tracked;
    this.inFlight.add(tracked);
  }

  /** Sets the job's timer for its next scheduled time after `after` (default: now). */
  private arm(job: Job, after?: Date): void {
    clearTimeout(job.timer);
    const next = job.schedule.next(after ?? new Date());
    if (!next) return;
    const wait = Math.min(Math.max(next.getTime() - Date.now(), 0), MAX_WAIT_MS);
    job.timer = setTimeout(() => this.due(job, next), wait);
    job.timer.unref();
  }

  private due(job: Job, scheduled: Date): void {
    if (this.jobs.get(job.id) !== job || !this.started) return;
    // Early (a long wait cut to MAX_WAIT_MS, or a timer a millisecond ahead of the clock).
    if (Date.now() < scheduled.getTime()) {
      const wait = Math.min(scheduled.getTime() - Date.now(), MAX_WAIT_MS);
      job.timer = setTimeout(() => this.due(job, scheduled), wait);
      job.timer.unref();
      return;
    }
    this.arm(job, scheduled);
    if (job.running) {
      this.options.log.warn(
        { job: job.id, scheduled: formatDate(scheduled) },
        'cron: skipped, the previous run is still under way',
      );
      return;
    }
    this.track(
      job,
      this.claim(job.id, scheduled).then(
        (claimed) => (claimed ? this.execute(job, { kind: 'schedule', scheduled }) : undefined),
        (err: unknown) => void this.options.log.warn({ err, job: job.id }, 'cron: claim failed'),
      ),
    );
  }

  /** Whether this instance runs the scheduled time (always, unless instances share a database). */
  private async claim(id: string, scheduled: Date): Promise<boolean> {
    if (!this.options.db) return true;
    const at = formatDate(scheduled);
    const db = this.options.db.withTables<ClaimsTable>();
    const { rows } = await sql<{ job: string }>`
      INSERT INTO cron_claims (job, scheduled) VALUES (${id}, ${at})
      ON CONFLICT (job) DO UPDATE SET scheduled = excluded.scheduled
      WHERE cron_claims.scheduled < excluded.scheduled
      RETURNING job`.execute(db);
    return rows.length === 1;
  }

  private async execute(job: Job, trigger: CronTrigger): Promise<void> {
    const started = performance.now();
    let report: CronRunReport;
    try {
      const result = (await job.run(trigger)) ?? undefined;
      report = { id: job.id, trigger, ms: performance.now() - started, result };
    } catch (error) {
      report = { id: job.id, trigger, ms: performance.now() - started, error };
      this.options.log.warn({ err: error, job: job.id }, 'cron: job failed');
    }
    try {
      this.options.onRun?.(report);
    } catch (err) {
      this.options.log.warn({ err, job: job.id }, 'cron: recording the run failed');
    }
  }
}
