import { sql } from 'kysely';
import { EVENTS_CHANNEL } from '../../src/core/events.js';
import { withDatabase } from './db.js';
import { jwtPayload } from './http.js';
import type { TestServer } from './server.js';

export const CONFIRM_IT_IS_YOU = "Confirm it's you to continue.";
export const VERIFY_EMAIL_FIRST = 'Verify your email first.';
export const REAUTH = '/api/gatehouse/reauth';
export const REAUTH_PASSKEY_OPTIONS = '/api/gatehouse/reauth/passkey-options';

/**
 * Moves the session of `token` past its fresh window, as if it signed in an hour ago (what
 * REAUTH_MINUTES measures from). On PostgreSQL the server's read cache hears of it the way it hears
 * another instance's change: through the events channel.
 */
export async function staleSession(t: TestServer, token: string): Promise<void> {
  const sid = jwtPayload(token).sid as string;
  const userId = jwtPayload(token).id as string;
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString().replace('T', ' ');
  await withDatabase(t, async (db) => {
    await db.updateTable('sessions').set({ confirmed_at: hourAgo }).where('id', '=', sid).execute();
    if (t.db === 'postgres') {
      const payload = JSON.stringify({
        o: 'test',
        e: { type: 'session-changed', userId, sessionId: sid },
      });
      await sql`select pg_notify(${EVENTS_CHANNEL}, ${payload})`.execute(db);
    }
  });
  if (t.db === 'postgres') await new Promise((resolve) => setTimeout(resolve, 150));
}
