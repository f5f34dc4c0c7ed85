import path from 'node:path';
import Database from 'better-sqlite3';
import type { AppServer } from './env';

/**
 * "Confirm it's you" in the journeys: a session is fresh for REAUTH_MINUTES (10) after its
 * sign-in, and the journeys run right after one. To reach the dialog, a test moves the member's
 * sessions an hour back in the server's own SQLite file, as another process would (the server
 * notices other connections' commits), the way server/test/support/reauth.ts does in the API tests.
 */
export function ageSessions(server: AppServer, memberId: string): void {
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString().replace('T', ' ');
  const db = new Database(path.join(server.dataDir, 'gatehouse.db'), { timeout: 5_000 });
  try {
    const changed = db
      .prepare('UPDATE sessions SET confirmed_at = ? WHERE user_id = ?')
      .run(hourAgo, memberId).changes;
    if (changed === 0) throw new Error(`No session of ${memberId} to age`);
  } finally {
    db.close();
  }
}

/** The dialog, by its name. */
export const CONFIRM_DIALOG = "Confirm it's you";
