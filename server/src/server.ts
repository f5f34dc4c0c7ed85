import type { AddressInfo } from 'node:net';
import { type Logger, pino } from 'pino';
import { buildApp } from './app.js';
import { WAY_IN_KINDS } from './ways-in-kinds.js';
import type { Config } from './config.js';
import { createContext } from './core/context.js';
import { openEvents } from './core/events.js';
import { MemoryCounterStore, RateLimiter, RedisCounterStore } from './core/rate-limit.js';
import { loadSigningSecret, tokenSecrets } from './core/tokens.js';
import { openDatabase } from './db/connect.js';
import { migrateToLatest } from './db/migrations/index.js';
import { preparedQueries } from './db/prepared.js';
import { WebApp } from './http/web-app.js';
import { collectWhenQuiet } from './tools/quiet-memory.js';
import { boundYoungGeneration } from './tools/young-generation.js';
import { bootstrapInviteLink, InitialUserExistsError } from './invites/service.js';
import { registerBackupSchedule } from './backups/schedule.js';
import { registerHousekeeping } from './housekeeping.js';
import { type CronRun, Crons } from './core/cron.js';
import { RequestLog } from './logs/request-log.js';
import { openLogStore } from './logs/store.js';
import { createLogger } from './logger.js';
import { settingsTransport } from './mail/transport.js';
import { MailWorker } from './mail/worker.js';

/** PostgreSQL: the longest a per-request read is served from this instance's memory. */
const SHARED_CACHE_MAX_AGE_MS = 1000;

/** A started Gatehouse server: HTTP listening, migrations run, mail worker running. */
export interface RunningServer {
  /** Base URL it listens on, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** While no initial user exists: the sign-up link that creates it. Otherwise null. */
  bootstrapLink: string | null;
  /** What the operator should know about where things go. */
  summary: { database: string; mail: 'smtp' | 'console'; rateLimits: string; webApp: boolean };
  /** Every route the HTTP app registered (method and path pattern): the API reference lists them. */
  routes: Array<{ method: string; url: string }>;
  /** Stops accepting, finishes in-flight requests, stops the mail worker, closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** false: no logs (tests); a pino logger: that one. Default: pino at config.logLevel to stdout. */
  logger?: boolean | Logger;
  /**
   * Scheduled jobs besides the housekeeping ones (core/cron.ts), each `{id, expression, run}`:
   * tests add theirs here. A feature's own job is registered below, beside registerHousekeeping.
   */
  jobs?: Array<{ id: string; expression: string; run: CronRun }>;
}

/** config → database → migrations → services → HTTP → mail worker. */
export async function startServer(
  config: Config,
  options: StartOptions = {},
): Promise<RunningServer> {
  const log =
    typeof options.logger === 'object'
      ? options.logger
      : options.logger === false
        ? pino({ level: 'silent' })
        : createLogger(config.logLevel, config.logFormat);
  // Before the database: with PostgreSQL and no TOKEN_SECRET this stops the start.
  const secrets = tokenSecrets(loadSigningSecret(config));
  const database = openDatabase(config, {
    onConnectionError: (err) =>
      log.warn({ err: err.message }, 'database connection lost; reconnecting on next use'),
    onRollbackError: (err) =>
      log.warn({ err }, 'rollback after a failed statement failed too (the first error follows)'),
  });
  const cleanup: Array<() => Promise<void>> = [() => database.close()];
  const closeAll = async () => {
    for (const step of cleanup.reverse()) await step().catch((err) => log.error({ err }, 'close'));
  };

  try {
    const { db } = database;
    await migrateToLatest(db);

    const store = !config.rateLimits
      ? undefined
      : config.redisUrl
        ? new RedisCounterStore(config.redisUrl, log)
        : new MemoryCounterStore();
    const limiter = new RateLimiter(store);
    cleanup.push(() => limiter.close());

    // Mail goes out as the settings say (SMTP_URL, or the SMTP settings): ctx is made below.
    const transport = settingsTransport(() => ctx.settings.smtp);
    const worker = new MailWorker(db, transport, {
      from: () => ctx.settings.mailFrom,
      pollMs: config.mailPollMs,
      retryBaseMs: config.mailRetryBaseMs,
      log,
    });

    const events = await openEvents(config.databaseUrl, db, log);
    cleanup.push(() => events.close());
    // PostgreSQL: the hot-path reads are kept at most a second, and dropped at once when another
    // instance's change arrives as an event (docs/decisions/0039).
    const queries = preparedQueries(database, { maxAgeMs: () => SHARED_CACHE_MAX_AGE_MS });
    events.subscribe((event) => {
      if (event.type === 'user-changed') queries.forgetUser(event.userId);
      else if (event.type === 'session-ended' || event.type === 'session-changed') {
        queries.forgetSession(event.userId, event.sessionId);
      } else if (event.type === 'resync' || event.type === 'database-restored') {
        queries.forgetAll();
      }
      // Another instance changed the settings, or events were missed: read them again.
      if (
        event.type === 'settings-changed' ||
        event.type === 'resync' ||
        event.type === 'database-restored'
      ) {
        ctx.settings.reload().catch((err: unknown) => {
          log.warn({ err }, 'settings not read again; keeping the ones in use');
        });
      }
    });

    const ctx = createContext(config, database, secrets, {
      waysIn: WAY_IN_KINDS,
      limiter,
      log,
      mailQueued: () => worker.notify(),
      events,
      queries,
    });
    await ctx.settings.reload();
    // The request log (logs/): DATA_DIR/auxiliary.db or PostgreSQL's logs table. Closed after
    // HTTP and the jobs (cleanup runs in reverse), so their last rows are written.
    const requestLog = new RequestLog(
      openLogStore({
        kind: database.kind,
        dataDir: config.dataDir,
        db: database.auxiliary ?? db,
      }),
      // Kept while the settings' logs.maxDays (LOGS_RETENTION_DAYS) is above 0.
      { log, keep: () => ctx.settings.logsMaxDays > 0 },
    );
    cleanup.push(() => requestLog.close());
    // Scheduled jobs (core/cron.ts): instances sharing PostgreSQL claim each scheduled run.
    const crons = new Crons({
      db: database.kind === 'postgres' ? db : undefined,
      log,
      onRun: (report) => requestLog.cronRun(report),
    });
    registerHousekeeping(crons, ctx, requestLog.store);
    // The settings' backups.cron, following the setting as it changes (`__pbAutoBackup__`).
    registerBackupSchedule(crons, ctx);
    for (const job of options.jobs ?? []) crons.add(job.id, job.expression, job.run);
    cleanup.push(() => crons.stop());
    const webApp = new WebApp(config.webDist, config);
    const routes: RunningServer['routes'] = [];
    const app = buildApp(ctx, webApp, log, { routes, requestLog, crons });
    // Closing order (reversed): HTTP first (in-flight requests finish), then the worker.
    cleanup.push(() => worker.stop());
    cleanup.push(() => app.close());

    database.serveRequests();
    await app.listen({ port: config.port, host: config.host });
    // After the listen: the web app's files are not needed to answer the API.
    webApp.load().catch((err: unknown) => log.error({ err }, 'the web app could not be read'));
    const stopBounding = boundYoungGeneration();
    const stopCollecting = collectWhenQuiet();
    cleanup.push(async () => {
      stopCollecting();
      stopBounding();
    });
    worker.start();
    crons.start();

    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const bootstrapLink = await bootstrapInviteLink(db, config.appUrl).catch((error: unknown) => {
      if (error instanceof InitialUserExistsError) return null;
      throw error;
    });

    let closing: Promise<void> | undefined;
    return {
      url: `http://${host}:${address.port}`,
      bootstrapLink,
      summary: {
        database: `${database.kind} (${database.location})`,
        mail: transport.kind,
        rateLimits: !store ? 'off' : config.redisUrl ? 'on (Redis)' : 'on (in memory)',
        webApp: webApp.built,
      },
      routes,
      close: () => (closing ??= closeAll()),
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
