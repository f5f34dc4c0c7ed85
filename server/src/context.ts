import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Tokens } from './accounts/tokens.js';
import type { Config } from './config.js';
import type { PreparedQueries } from './db/prepared.js';
import type { Database } from './db/schema.js';
import type { RateLimiter } from './http/rate-limit.js';

/** The services every route handler works with, built once in server.ts. */
export interface AppContext {
  config: Config;
  db: Kysely<Database>;
  /** Hot-path reads compiled once (db/prepared.ts). */
  queries: PreparedQueries;
  tokens: Tokens;
  limiter: RateLimiter;
  /** Wakes the mail worker after a commit that queued mail. */
  mailQueued(): void;
  log: Logger;
}
