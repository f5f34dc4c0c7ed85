import type { Kysely } from 'kysely';
import { openDatabase } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import type { TestServer } from './server.js';

/**
 * Runs `fn` on a connection of its own to the test server's database (SQLite file or PostgreSQL),
 * to look at or prepare what the API does not show: outbox rows, stored hashes, counters.
 */
export async function withDatabase<T>(
  t: TestServer,
  fn: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  const handle = openDatabase({ dataDir: t.dataDir, databaseUrl: t.databaseUrl });
  try {
    return await fn(handle.db);
  } finally {
    await handle.close();
  }
}
