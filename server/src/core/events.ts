import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import { lazyRequire } from '../tools/lazy-require.js';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';

/**
 * Events between instances (docs/decisions/0034-events-between-instances.md): what one instance
 * changed and the others must know (realtime subscribers, per-instance caches).
 *
 * `publish` delivers to this instance's listeners at once (in the next microtask, never waiting
 * for the database) and, on PostgreSQL, to every other instance through `NOTIFY` on one channel;
 * each instance `LISTEN`s on one dedicated connection of its own, reconnecting when it is lost.
 * An instance never hears its own notifications twice. Publish after the change has committed:
 * listeners may read the database and must see it.
 */

/** A record of a collection changed (PocketBase's realtime actions). */
export interface RecordEvent {
  type: 'record';
  collection: 'users' | 'invite_codes';
  action: 'create' | 'update' | 'delete';
  /** The record as the API shows it to its owner. */
  record: { id: string } & Record<string, unknown>;
  /** Whose record it is: only this member's subscribers may see it. */
  userId: string;
}

/** Sessions ended: one (`sessionId`), or any number of the member's (null: look them up). */
export interface SessionEndedEvent {
  type: 'session-ended';
  userId: string;
  sessionId: string | null;
}

/** A session's row changed (it was confirmed again): read caches drop what they hold of it. */
export interface SessionChangedEvent {
  type: 'session-changed';
  userId: string;
  sessionId: string;
}

/** The member's row changed (email, verification, token key, disabled, operator…). */
export interface UserChangedEvent {
  type: 'user-changed';
  userId: string;
  /**
   * Announced by the database's own trigger (migration 0008), for every instance's read cache. The
   * code that made the change raises its own events too, so realtime sends nothing for this one.
   */
  fromDatabase?: boolean;
}

/** An OAuth2 provider redirected back (`/api/oauth2-redirect`) for the realtime client `clientId`. */
export interface OAuth2Event {
  type: 'oauth2';
  clientId: string;
  /** Where the redirect came from (PocketBase refuses a redirect from another address). */
  ip: string;
  payload: { state: string; code: string; error?: string };
}

/**
 * The instance holding the realtime client `clientId` handed it an OAuth2Event: the instance that
 * received the redirect waits for this before telling the popup it worked.
 */
export interface OAuth2DeliveredEvent {
  type: 'oauth2-delivered';
  clientId: string;
}

/** An operator changed the app's settings (core/settings.ts): every instance reads them again. */
export interface SettingsChangedEvent {
  type: 'settings-changed';
}

/**
 * The database was restored from a backup (backups/): every instance drops what it keeps of the
 * data (read caches) and reads the settings again.
 */
export interface DatabaseRestoredEvent {
  type: 'database-restored';
}

/**
 * Local only, never published: events from other instances may have been missed (the listening
 * connection was lost and is back). Whoever keeps state derived from events drops it.
 */
export interface ResyncEvent {
  type: 'resync';
}

export type PublishedEvent =
  | RecordEvent
  | SessionEndedEvent
  | SessionChangedEvent
  | UserChangedEvent
  | OAuth2Event
  | OAuth2DeliveredEvent
  | SettingsChangedEvent
  | DatabaseRestoredEvent;
export type AppEvent = PublishedEvent | ResyncEvent;
export type EventListener = (event: AppEvent) => void;

export interface Events {
  /** Whether other instances may publish and listen too (PostgreSQL), or this one is alone. */
  readonly shared: boolean;
  /** To this instance's listeners now, to the other instances' through the database. */
  publish(event: PublishedEvent): void;
  /** Calls `listener` for every event, local or from another instance; returns the unsubscribe. */
  subscribe(listener: EventListener): () => void;
  /** Sends what is under way, then stops listening (its database connection ends). */
  close(): Promise<void>;
}

/** The origin of the notifications the database's triggers send (migration 0008). */
const DATABASE_ORIGIN = 'db';

/** PostgreSQL's channel for Gatehouse's events. */
export const EVENTS_CHANNEL = 'gatehouse_events';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
export const MAX_PAYLOAD_BYTES = 7999;

/** Reconnect delays of the listening connection: doubling from 250 ms, at most 5 s. */
const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 5000;

/** One process: listeners are called in order; one that throws does not stop the others. */
export class LocalEvents implements Events {
  readonly shared: boolean = false;
  private readonly listeners = new Set<EventListener>();

  constructor(protected readonly log?: Logger) {}

  publish(event: PublishedEvent): void {
    this.deliverSoon(event);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  protected deliverSoon(event: AppEvent): void {
    queueMicrotask(() => this.deliver(event));
  }

  protected deliver(event: AppEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.log?.error({ err, event: event.type }, 'event listener failed');
      }
    }
  }
}

export interface PostgresEventsOptions {
  /** `postgres://…`: the listening connection is made from it, apart from the pool. */
  databaseUrl: string;
  /** Sends NOTIFYs in this order, in one statement (through the request pool). */
  notify: (channel: string, payloads: string[]) => Promise<unknown>;
  log: Logger;
  /** false: publish only (the CLI), no listening connection. */
  listen?: boolean;
}

/**
 * Several instances on PostgreSQL: NOTIFY through the pool, LISTEN on a dedicated connection.
 * A payload names its instance, so an instance ignores its own notifications (it delivered them
 * locally already). A lost connection is made again, and listeners get a `resync` then.
 */
export class PostgresEvents extends LocalEvents {
  override readonly shared = true;
  /** This instance, in every payload it sends. */
  readonly origin = randomBytes(6).toString('base64url');
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private connected = false;
  private lostOnce = false;
  private readonly queue: string[] = [];
  private sending: Promise<void> | undefined;

  constructor(private readonly options: PostgresEventsOptions) {
    super(options.log);
  }

  /** Resolves once listening (or at once when not listening); a first failure retries. */
  async start(): Promise<void> {
    if (this.options.listen === false) return;
    await this.connect();
  }

  override publish(event: PublishedEvent): void {
    this.deliverSoon(event);
    const payload = JSON.stringify({ o: this.origin, e: event });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) {
      this.log?.warn(
        { event: event.type, bytes: Buffer.byteLength(payload) },
        'event too large for the other instances; delivered on this one only',
      );
      return;
    }
    this.queue.push(payload);
    this.sending ??= this.send().finally(() => (this.sending = undefined));
  }

  /**
   * Sends the queued payloads in order: one statement for all that are waiting, then the next
   * batch (a burst costs one round trip, and other instances see events in publish order).
   */
  private async send(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.queue.length);
      await this.options.notify(EVENTS_CHANNEL, batch).catch((err: unknown) => {
        this.log?.warn({ err, events: batch.length }, 'events not sent to the other instances');
      });
    }
  }

  /** Whether the listening connection is up now (tests, readiness). */
  get listening(): boolean {
    return this.connected;
  }

  /** Stops listening, after the notifications under way are sent. */
  override async close(): Promise<void> {
    await this.sending;
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.connected = false;
    await client?.end().catch(() => {});
    await super.close();
  }

  private async connect(): Promise<void> {
    const client = new (lazyRequire<typeof pg>('pg').Client)({
      connectionString: this.options.databaseUrl,
      // Keep-alives find a connection that died silently (a NAT or proxy dropped it).
      keepAlive: true,
      connectionTimeoutMillis: 5000,
    });
    client.on('notification', (message) => this.received(message.payload));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (err) {
      this.lost(client, err);
      return;
    }
    if (this.closed || this.client !== client) {
      await client.end().catch(() => {});
      return;
    }
    this.connected = true;
    this.retryMs = RECONNECT_MIN_MS;
    if (this.lostOnce) {
      this.log?.info('event channel: listening again');
      this.deliver({ type: 'resync' });
    }
  }

  private lost(client: pg.Client, err?: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    const wasConnected = this.connected;
    this.connected = false;
    client.removeAllListeners('notification');
    client.end().catch(() => {});
    if (this.closed) return;
    if (wasConnected || !this.lostOnce) {
      this.log?.warn(
        { err: err instanceof Error ? err.message : undefined },
        'event channel: connection lost; reconnecting',
      );
    }
    this.lostOnce = true;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }

  private received(payload: string | undefined): void {
    if (!payload) return;
    let message: { o?: unknown; e?: unknown };
    try {
      message = JSON.parse(payload) as { o?: unknown; e?: unknown };
    } catch {
      return;
    }
    if (message.o === this.origin || !isPublishedEvent(message.e)) return;
    const event = message.e;
    if (message.o === DATABASE_ORIGIN && event.type === 'user-changed') event.fromDatabase = true;
    this.deliver(event);
  }
}

function isPublishedEvent(value: unknown): value is PublishedEvent {
  if (typeof value !== 'object' || value === null) return false;
  const type = (value as { type?: unknown }).type;
  return (
    type === 'record' ||
    type === 'session-ended' ||
    type === 'session-changed' ||
    type === 'user-changed' ||
    type === 'oauth2' ||
    type === 'oauth2-delivered' ||
    type === 'settings-changed' ||
    type === 'database-restored'
  );
}

/**
 * The channel for this process: in-process without DATABASE_URL (one SQLite instance), else
 * PostgreSQL's; `listen: false` only sends (the CLI tells running instances what it changed).
 */
export async function openEvents(
  databaseUrl: string | undefined,
  db: Kysely<Database>,
  log: Logger,
  options: { listen?: boolean } = {},
): Promise<Events> {
  if (!databaseUrl) return new LocalEvents(log);
  const events = new PostgresEvents({
    databaseUrl,
    notify: (channel, payloads) =>
      sql`select pg_notify(${channel}, p) from unnest(${payloads}::text[]) with ordinality as t(p, n) order by n`.execute(
        db,
      ),
    log,
    listen: options.listen,
  });
  await events.start();
  return events;
}
