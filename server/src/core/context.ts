import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { PreparedQueries } from '../db/prepared.js';
import type { Database } from '../db/schema.js';
import type { RateLimiter } from './rate-limit.js';
import type { SecretBox } from './secret-box.js';
import type { Tokens } from './tokens.js';

/** The services every feature works with, built once in server.ts. */
export interface AppContext {
  config: Config;
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
}

/** Who is asking: the client's address (after TRUST_PROXY) and browser. */
export interface Client {
  ip: string;
  /** What per-address limits count: the IPv4 address, or the IPv6 /64 (`clientNetwork`). */
  network: string;
  userAgent: string;
}
