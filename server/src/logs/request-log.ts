import type { FastifyReply, FastifyRequest, onResponseHookHandler, RouteOptions } from 'fastify';
import type { Logger } from 'pino';
import type { CronRunReport } from '../core/cron.js';
import type { Auth } from '../core/users.js';
import { formatDate } from '../tools/time.js';
import {
  LEVEL_ERROR,
  LEVEL_INFO,
  LEVEL_WARN,
  type OtherEntry,
  packColumns,
  RequestColumns,
  Texts,
} from './entries.js';
import type { LogStore } from './store.js';

/**
 * The request log (PocketBase's logs): an entry per API request, written in batches off the
 * request path. Each API route gets an onResponse hook of its own (`attach`), which knows the
 * route's pattern already and only writes a few numbers into columns in memory; every `flushMs`,
 * or as soon as `batchRows` are waiting, they are packed and written in one transaction
 * (logs/entries.ts, logs/store.ts). The columns hold at most `maxBuffered` entries: when the store
 * cannot keep up, the oldest are overwritten and counted, and the next write adds a warning entry
 * saying how many. A failed write is reported to the server's log and its entries
 * are lost: the log never holds requests up.
 *
 * Never a header (but the browser's name), a body, a query string or the path as sent (ids and
 * tokens): the route's pattern only. Successful reads of the log itself are left out, as
 * PocketBase leaves them out.
 */

export interface RequestLogOptions {
  log: Logger;
  /** Whether entries are kept now (the settings' logs.maxDays above 0): asked at each write. */
  keep: () => boolean;
  flushMs?: number;
  batchRows?: number;
  maxBuffered?: number;
}

/** Texts (addresses, browsers, members) remembered between writes, at most. */
const MAX_TEXTS = 10_000;

export class RequestLog {
  private readonly texts = new Texts();
  private columns: RequestColumns;
  private spare: RequestColumns;
  private others: OtherEntry[] = [];
  /** Counts writes: a member found after a write does not land in a reused slot. */
  private generation = 0;
  private flushing: Promise<void> | undefined;
  private soon = false;
  private readonly timer: NodeJS.Timeout;
  private readonly batchRows: number;
  private readonly unmatched: number;

  constructor(
    readonly store: LogStore,
    private readonly options: RequestLogOptions,
  ) {
    this.batchRows = options.batchRows ?? 5000;
    const capacity = options.maxBuffered ?? 50_000;
    this.columns = new RequestColumns(capacity);
    this.spare = new RequestColumns(capacity);
    for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']) {
      this.texts.of(method);
    }
    this.unmatched = this.texts.of('(unmatched)');
    this.texts.pin();
    this.timer = setInterval(() => void this.flush(), options.flushMs ?? 1000);
    this.timer.unref();
  }

  /**
   * Gives an API route its onResponse hook (app.ts calls this for every route as it is added).
   * The pattern is known here, once, instead of being looked up on every request.
   */
  attach(route: RouteOptions): void {
    const url = this.texts.of(route.url);
    this.texts.pin();
    const quietWhenOk = route.url === '/api/logs' || route.url.startsWith('/api/logs/');
    const hook: onResponseHookHandler = (request, reply, done) => {
      // LOGS_RETENTION_DAYS=0 (logs.maxDays 0): nothing is kept, so nothing is recorded.
      if ((!quietWhenOk || reply.statusCode >= 400) && this.options.keep()) {
        this.record(request, reply, url);
      }
      done();
    };
    const hooks = route.onResponse;
    route.onResponse = hooks ? [...(Array.isArray(hooks) ? hooks : [hooks]), hook] : [hook];
  }

  /** A request to an API path no route takes (the not-found handler, a path Fastify refused). */
  recordUnmatched(request: FastifyRequest, reply: FastifyReply): void {
    reply.raw.once('finish', () => this.record(request, reply, this.unmatched));
  }

  private record(request: FastifyRequest, reply: FastifyReply, url: number): void {
    const c = this.columns;
    const texts = this.texts;
    const s = c.next();
    c.at[s] = Date.now();
    c.us[s] = Math.round(reply.elapsedTime * 1000);
    c.status[s] = reply.statusCode;
    c.method[s] = texts.of(request.method);
    c.url[s] = url;
    c.ip[s] = texts.of(request.ip ?? '');
    c.agent[s] = texts.of(request.headers['user-agent'] ?? '');
    // The member, when the route asked who is signed in (http/auth.ts); on PostgreSQL that answer
    // is a promise, settled by now (its callback runs before any write).
    const auth = request.authLoaded;
    if (auth instanceof Promise) {
      c.auth[s] = -1;
      const generation = this.generation;
      auth.then(
        (found: Auth | undefined) => {
          if (found && generation === this.generation) c.auth[s] = texts.of(found.user.id);
        },
        () => {},
      );
    } else {
      c.auth[s] = auth ? texts.of(auth.user.id) : -1;
    }
    if (c.count === this.batchRows && !this.soon) {
      this.soon = true;
      setImmediate(() => {
        this.soon = false;
        void this.flush();
      });
    }
  }

  /** Any other entry (a scheduled job's run): `data` as it is. */
  add(level: number, message: string, data: Record<string, unknown>): void {
    if (this.others.length < 1000) this.others.push({ at: Date.now(), level, message, data });
  }

  /**
   * A scheduled job's run (core/cron.ts): `Cron job sessions_cleanup` with `data` {type "cron",
   * job, trigger ("schedule" or "manual"), scheduled, execTime, what it returned, error}. Level 8
   * when it failed; only the error's message is kept.
   */
  cronRun(report: CronRunReport): void {
    const { id, trigger, ms, result, error } = report;
    this.add(error === undefined ? LEVEL_INFO : LEVEL_ERROR, `Cron job ${id}`, {
      type: 'cron',
      job: id,
      trigger: trigger.kind,
      ...(trigger.kind === 'schedule' ? { scheduled: formatDate(trigger.scheduled) } : {}),
      execTime: Math.round(ms * 1000) / 1000,
      ...result,
      ...(error === undefined
        ? {}
        : { error: error instanceof Error ? error.message : String(error) }),
    });
  }

  /** Writes what is waiting (after the write under way, if any). */
  flush(): Promise<void> {
    const run = async (): Promise<void> => {
      await this.flushing;
      const columns = this.columns;
      const others = this.others;
      if (columns.count === 0 && others.length === 0) return;
      // Swapped and packed at once, with no request in between: the texts can then be trimmed.
      this.columns = this.spare;
      this.spare = columns;
      this.others = [];
      this.generation += 1;
      if (columns.dropped > 0) {
        others.push({
          at: Date.now(),
          level: LEVEL_WARN,
          message: `Request log buffer full: ${columns.dropped} entries dropped`,
          data: { type: 'requestLog', dropped: columns.dropped },
        });
        this.options.log.warn(
          { dropped: columns.dropped },
          'request log: buffer full, entries dropped',
        );
      }
      const batches = this.options.keep() ? packColumns(columns, this.texts, others) : [];
      columns.clear();
      this.texts.trim(MAX_TEXTS);
      if (batches.length === 0) return;
      try {
        await this.store.insert(batches);
      } catch (err) {
        this.options.log.warn({ err }, 'request log: write failed, entries lost');
      }
    };
    const flushing = run();
    this.flushing = flushing;
    void flushing.finally(() => {
      if (this.flushing === flushing) this.flushing = undefined;
    });
    return flushing;
  }

  /** Stops the timer, writes what is left, and closes the store. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    await this.store.close();
  }
}
