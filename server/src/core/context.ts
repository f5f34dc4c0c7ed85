import type { Kysely } from 'kysely';
import { type Logger, pino } from 'pino';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/connect.js';
import { preparedQueries, type PreparedQueries } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { Events } from './events.js';
import { RateLimiter } from './rate-limit.js';
import { SecretBox } from './secret-box.js';
import { Settings } from './settings.js';
import { Tokens, type TokenSecrets } from './tokens.js';
import { type WayInKind, WaysIn } from './ways-in.js';

/** The services every feature works with, built once by createContext (server.ts, the CLI). */
export interface AppContext {
  config: Config;
  /**
   * What operators may change while the server runs (core/settings.ts): read the values listed
   * there (app name and address for mail, the sender, SMTP, invites per member, session and audit
   * lifetimes, backups schedule) here, not from `config`.
   */
  settings: Settings;
  db: Kysely<Database>;
  /** Hot-path reads compiled once (db/prepared.ts). */
  queries: PreparedQueries;
  /** Readiness: whether the database answers now, within a second (GET /api/ready). */
  databaseReady(): Promise<boolean>;
  tokens: Tokens;
  limiter: RateLimiter;
  /** Seals the secrets the server reads back (TOTP seeds), keyed from the token secrets. */
  box: SecretBox;
  /** Wakes the mail worker after a commit that queued mail. */
  mailQueued(): void;
  log: Logger;
  /** Events between instances: what changed, for realtime and caches (core/events.ts). */
  events: Events;
  /** The ways in the features offer (passkeys, providers, two-step): counted and removed here. */
  waysIn: WaysIn;
}

/** Who is asking: the client's address (after TRUST_PROXY) and browser. */
export interface Client {
  ip: string;
  /** What per-address limits count: the IPv4 address, or the IPv6 /64 (`clientNetwork`). */
  network: string;
  userAgent: string;
}

/** What differs between the server and the CLI; the rest of the context follows from the config. */
export interface ContextOptions {
  /** Default: no limits (the CLI). */
  limiter?: RateLimiter;
  /** Default: silent. */
  log?: Logger;
  /** Default: nothing to wake (the CLI runs no mail worker; a running server polls). */
  mailQueued?: () => void;
  /** The events channel (core/events.ts): the server's listens, the CLI's only publishes. */
  events: Events;
  /** Default: the hot-path reads as they are on one machine (db/prepared.ts). */
  queries?: PreparedQueries;
  /** The features' ways in (the composition root's WAY_IN_KINDS). */
  waysIn: readonly WayInKind[];
}

/**
 * The one place an AppContext is put together, for the server and the CLI alike. `secrets` is
 * loaded by the caller before the database is opened (with PostgreSQL and no TOKEN_SECRET that
 * stops the start before connecting).
 */
export function createContext(
  config: Config,
  database: DatabaseHandle,
  secrets: TokenSecrets,
  options: ContextOptions,
): AppContext {
  const box = SecretBox.fromSecrets(secrets);
  return {
    config,
    // Read from the database by settings.reload(): the server does at start, and on every change.
    settings: new Settings(config, database.db, box),
    db: database.db,
    queries: options.queries ?? preparedQueries(database),
    databaseReady: () => database.ready(),
    tokens: new Tokens(secrets),
    box,
    limiter: options.limiter ?? new RateLimiter(undefined),
    mailQueued: options.mailQueued ?? (() => {}),
    log: options.log ?? pino({ level: 'silent' }),
    events: options.events,
    waysIn: new WaysIn(options.waysIn),
  };
}
