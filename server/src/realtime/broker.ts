import type { ServerResponse } from 'node:http';
import type { AppContext } from '../core/context.js';
import { TooManyRequestsError } from '../core/errors.js';
import type { AppEvent, OAuth2Event, RecordEvent } from '../core/events.js';
import { clientNetwork } from '../core/rate-limit.js';
import { liveSession } from '../core/sessions.js';
import { USERS_COLLECTION_ID } from '../core/tokens.js';
import { findUserById, sessionAllows, userRecord } from '../core/users.js';
import { randomString } from '../tools/random.js';
import { REALTIME_LIMITS } from './limits.js';

/**
 * The realtime clients connected to this instance and what they subscribed to (PocketBase's
 * subscriptions broker, apis/realtime.go), fed by the event channel (core/events.ts), so events
 * raised on any instance reach the clients on this one (docs/decisions/0035-realtime-transport.md).
 *
 * A client is one open `GET /api/realtime` response. Idle clients cost no timer: one shared sweep
 * writes a keep-alive comment to all of them and drops those that stopped reading. Writes never
 * wait: a client whose unsent output grows past MAX_BUFFERED_BYTES is dropped at once, so a slow
 * reader costs the others nothing. A client network, and a member, may hold only so many streams
 * (REALTIME_LIMITS): past either, the request that would add one answers 429.
 */

/** The topic of the SDK's all-in-one OAuth2 flow (`authWithOAuth2`). */
const OAUTH2_TOPIC = '@oauth2';

/** Unsent output a client may have before it is dropped (a client that does not read). */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

/** How often the sweep writes a keep-alive comment (proxies end quiet streams after 60 s). */
export const KEEP_ALIVE_MS = 30_000;

const CLIENT_ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Whom the client's subscriptions were made for (PocketBase keeps the auth record). */
export interface ClientAuth {
  userId: string;
  sessionId: string;
}

export class RealtimeClient {
  /** PocketBase's: 40 random characters, also the OAuth2 `state`. */
  readonly id = randomString(40, CLIENT_ID_ALPHABET);
  auth: ClientAuth | null = null;
  /** Topics as sent, options included (`users/abc?options=…`): the event name is this string. */
  subscriptions = new Set<string>();
  /** Unsent output was waiting at the last sweep and still is: the client is not reading. */
  stalled = false;
  closed = false;
  /** What the per-network limit counts: the IPv4 address, or the IPv6 /64. */
  readonly network: string;

  constructor(
    readonly ip: string,
    readonly response: ServerResponse,
  ) {
    this.network = clientNetwork(ip);
  }

  /** Topics matching `prefix` the way PocketBase matches them (`topic + '?'` starts with it). */
  matching(prefix: string): string[] {
    const found: string[] = [];
    for (const topic of this.subscriptions) if ((topic + '?').startsWith(prefix)) found.push(topic);
    return found;
  }
}

export interface BrokerOptions {
  maxBufferedBytes?: number;
  keepAliveMs?: number;
}

export class Broker {
  private readonly clients = new Map<string, RealtimeClient>();
  /** Signed-in clients by member: every event is one member's, so a broadcast looks only here. */
  private readonly byUser = new Map<string, Set<RealtimeClient>>();
  /** Open streams by client network, for its limit. */
  private readonly byNetwork = new Map<string, number>();
  /** None with RATE_LIMITS=off. */
  private readonly limits: typeof REALTIME_LIMITS | undefined;
  private readonly maxBuffered: number;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly ctx: AppContext,
    options: BrokerOptions = {},
  ) {
    this.maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
    this.limits = ctx.limiter.enabled ? REALTIME_LIMITS : undefined;
    this.sweepTimer = setInterval(() => this.sweep(), options.keepAliveMs ?? KEEP_ALIVE_MS);
    this.sweepTimer.unref();
    this.unsubscribe = ctx.events.subscribe((event) => this.onEvent(event));
  }

  /** Clients connected now (the realtime connections gauge). */
  get size(): number {
    return this.clients.size;
  }

  /** Adds a new stream; one past its network's limit is refused (429) and not added. */
  register(client: RealtimeClient): void {
    const open = this.byNetwork.get(client.network) ?? 0;
    if (this.limits && open >= this.limits.streamsPerNetwork) throw new TooManyRequestsError();
    this.byNetwork.set(client.network, open + 1);
    this.clients.set(client.id, client);
  }

  /** Removes a stream and gives its slots back; again for the same stream does nothing. */
  unregister(client: RealtimeClient): void {
    client.closed = true;
    client.subscriptions.clear();
    this.setAuth(client, null);
    if (!this.clients.delete(client.id)) return;
    const open = (this.byNetwork.get(client.network) ?? 1) - 1;
    if (open > 0) this.byNetwork.set(client.network, open);
    else this.byNetwork.delete(client.network);
  }

  get(id: string): RealtimeClient | undefined {
    return this.clients.get(id);
  }

  /**
   * Replaces the client's subscriptions and auth (PocketBase: unsubscribe all, then subscribe).
   * Binding a stream to a member who already holds their limit of streams is refused (429) and
   * changes nothing: the SDK then rejects its `subscribe` call and closes the stream itself.
   */
  subscribe(client: RealtimeClient, auth: ClientAuth | null, topics: string[]): void {
    if (
      this.limits &&
      auth &&
      client.auth?.userId !== auth.userId &&
      (this.byUser.get(auth.userId)?.size ?? 0) >= this.limits.streamsPerMember
    ) {
      throw new TooManyRequestsError();
    }
    this.setAuth(client, auth);
    client.subscriptions = new Set(topics.filter((t) => t !== ''));
  }

  /** Writes one SSE message: `id` is the client's id, `event` the topic (PocketBase's format). */
  send(client: RealtimeClient, name: string, data: string): void {
    this.write(client, `id:${client.id}\nevent:${name}\ndata:${data}\n\n`);
  }

  /** Ends every stream (shutdown): clients see the end and reconnect, to another instance. */
  closeAll(): void {
    clearInterval(this.sweepTimer);
    this.unsubscribe();
    for (const client of [...this.clients.values()]) {
      this.unregister(client);
      const { response } = client;
      // A client that is not reading would hold the shutdown up: it is cut off.
      if (response.writableLength > 0) response.destroy();
      else {
        // Closed once the end is sent: a half-closed connection would hold the shutdown up.
        const socket = response.socket;
        response.end(() => socket?.destroy());
      }
    }
  }

  /** Ends the stream of a client (its session ended, its account is gone). */
  end(client: RealtimeClient): void {
    this.unregister(client);
    client.response.end();
  }

  private drop(client: RealtimeClient, reason: string): void {
    this.ctx.log.debug({ clientId: client.id, reason }, 'realtime client dropped');
    this.unregister(client);
    client.response.destroy();
  }

  private write(client: RealtimeClient, text: string): void {
    if (client.closed) return;
    client.response.write(text);
    if (client.response.writableLength > this.maxBuffered) this.drop(client, 'not reading');
  }

  private setAuth(client: RealtimeClient, auth: ClientAuth | null): void {
    const before = client.auth;
    if (before?.userId !== auth?.userId && before) {
      const set = this.byUser.get(before.userId);
      set?.delete(client);
      if (set?.size === 0) this.byUser.delete(before.userId);
    }
    if (auth && before?.userId !== auth.userId) {
      let set = this.byUser.get(auth.userId);
      if (!set) this.byUser.set(auth.userId, (set = new Set()));
      set.add(client);
    }
    client.auth = auth;
  }

  /** Keep-alive for every client; a client that read nothing since the last sweep is dropped. */
  private sweep(): void {
    for (const client of [...this.clients.values()]) {
      const waiting = client.response.writableLength > 0;
      if (waiting && client.stalled) {
        this.drop(client, 'not reading');
        continue;
      }
      client.stalled = waiting;
      this.write(client, ':\n\n');
    }
  }

  private onEvent(event: AppEvent): void {
    switch (event.type) {
      case 'record':
        return this.broadcastRecord(event);
      case 'oauth2':
        return this.forwardOAuth2(event);
      case 'oauth2-delivered':
        return;
      case 'session-ended':
      case 'user-changed':
        if (!this.byUser.has(event.userId)) return;
        void this.recheck(event.userId, event.type === 'user-changed' && !event.fromDatabase).catch(
          (err: unknown) =>
            this.ctx.log.warn({ err }, 'realtime: checking sessions after an event failed'),
        );
        return;
      case 'resync':
        // Events may have been missed: every signed-in client's session is checked again.
        for (const userId of [...this.byUser.keys()]) {
          void this.recheck(userId, false).catch(() => {});
        }
        return;
    }
  }

  /** PocketBase's record topics: `coll/id`, `coll/*` and the older bare `coll`, by name or id. */
  private broadcastRecord(event: RecordEvent): void {
    const clients = this.byUser.get(event.userId);
    if (!clients) return;
    const names =
      event.collection === 'users' ? ['users', USERS_COLLECTION_ID] : [event.collection];
    const prefixes = names.flatMap((n) => [`${n}/${event.record.id}?`, `${n}/*?`, `${n}?`]);
    const data = JSON.stringify({ action: event.action, record: event.record });
    for (const client of [...clients]) {
      for (const prefix of prefixes) {
        for (const topic of client.matching(prefix)) this.send(client, topic, data);
      }
    }
    // The account is gone: so are its streams.
    if (event.collection === 'users' && event.action === 'delete') {
      for (const client of [...clients]) this.end(client);
    }
  }

  /**
   * After a change to a member's row or sessions: on a change of the row, sends the fresh record as
   * `update` (their own record, to streams that were theirs a moment ago); then ends the streams
   * whose session is over, or whose member is disabled or gone. Each session is read once, however
   * many streams (tabs) share it.
   */
  private async recheck(userId: string, changed: boolean): Promise<void> {
    const user = await findUserById(this.ctx, userId);
    if (!user) {
      // The account is gone. The database's own notice can arrive before the deletion's event:
      // its streams hear `delete` for their record all the same, then end (as with that event,
      // which then finds no stream left).
      this.broadcastRecord({
        type: 'record',
        collection: 'users',
        action: 'delete',
        record: { id: userId },
        userId,
      });
      return;
    }
    if (changed && user.disabled !== 1) {
      this.broadcastRecord({
        type: 'record',
        collection: 'users',
        action: 'update',
        record: userRecord(user, { withEmail: true }),
        userId,
      });
    }
    const alive = new Map<string, Promise<boolean>>();
    const isAlive = (sessionId: string) => {
      let answer = alive.get(sessionId);
      if (!answer) {
        answer = Promise.resolve(liveSession(this.ctx, sessionId)).then((session) =>
          sessionAllows(user, session),
        );
        alive.set(sessionId, answer);
      }
      return answer;
    };
    for (const client of [...(this.byUser.get(userId) ?? [])]) {
      const auth = client.auth;
      if (!auth || auth.userId !== userId) continue;
      if (!(await isAlive(auth.sessionId))) this.end(client);
    }
  }

  /**
   * PocketBase's oauth2-redirect, on the instance holding the client: only to a client subscribed
   * to `@oauth2`, only from the address that opened it; the subscription is then removed. Whether
   * the client took it.
   */
  deliverOAuth2(event: OAuth2Event): boolean {
    const client = this.clients.get(event.clientId);
    if (!client || !client.subscriptions.has(OAUTH2_TOPIC) || client.ip !== event.ip) return false;
    client.subscriptions.delete(OAUTH2_TOPIC);
    this.send(client, OAUTH2_TOPIC, JSON.stringify(event.payload));
    return true;
  }

  /** A redirect received by another instance: that instance answers its popup once it hears. */
  private forwardOAuth2(event: OAuth2Event): void {
    if (this.deliverOAuth2(event)) {
      this.ctx.events.publish({ type: 'oauth2-delivered', clientId: event.clientId });
    }
  }
}
