import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { packBatches, type RequestEntry } from '../../src/logs/entries.js';
import { withDatabase } from './db.js';
import type { TestServer } from './server.js';

/**
 * Requests written straight into the request log's store (SQLite's auxiliary.db, or PostgreSQL's
 * logs table), packed as the server packs them: entries of other times than now.
 */
export async function insertLogEntries(
  t: TestServer,
  entries: Array<Pick<RequestEntry, 'at' | 'url'> & Partial<RequestEntry>>,
): Promise<void> {
  const batches = packBatches(
    entries.map((e) => ({
      method: 'GET',
      status: 200,
      ms: 1,
      ip: '127.0.0.1',
      userAgent: 'seeded',
      authId: '',
      ...e,
    })),
  );
  if (t.db === 'sqlite') {
    const aux = new SQLite(path.join(t.dataDir, 'auxiliary.db'));
    try {
      const insert = aux.prepare('INSERT INTO logs (first, last, n, entries) VALUES (?, ?, ?, ?)');
      for (const b of batches) insert.run(b.first, b.last, b.n, b.entries);
    } finally {
      aux.close();
    }
    return;
  }
  await withDatabase(t, async (kdb) => {
    for (const b of batches) {
      await sql`insert into logs (first, last, n, entries)
                values (${b.first}, ${b.last}, ${b.n}, ${b.entries})`.execute(kdb);
    }
  });
}
