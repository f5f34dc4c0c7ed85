import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import { jwtPayload } from '../support/http.js';
import { DATABASES, startTestServer, type TestServer } from '../support/server.js';

/**
 * auth-refresh moves a session's last seen only when it is a minute old or the address changed:
 * a refresh is the SDK's most frequent call, and each write on SQLite drops the read cache of
 * every member. What the database holds is read before and after, behind the server's back.
 */
describe.each(DATABASES)('auth-refresh and the session row on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    // TRUST_PROXY lets a refresh come from another address (X-Forwarded-For).
    t = await startTestServer({ db, env: { TRUST_PROXY: '1' } });
  });
  afterAll(() => t?.close());

  const row = (sid: string) =>
    withDatabase(t, (d) =>
      d
        .selectFrom('sessions')
        .select(['last_seen', 'ip'])
        .where('id', '=', sid)
        .executeTakeFirstOrThrow(),
    );
  const setLastSeen = (sid: string, lastSeen: string) =>
    withDatabase(t, (d) =>
      d.updateTable('sessions').set({ last_seen: lastSeen }).where('id', '=', sid).execute(),
    );
  const refresh = (token: string, from?: string) =>
    t.request('POST', PATHS.refresh, {
      headers: { Authorization: token, ...(from ? { 'X-Forwarded-For': from } : {}) },
    });
  const minutesAgo = (minutes: number) =>
    new Date(Date.now() - minutes * 60_000).toISOString().replace('T', ' ');

  it('refreshes within the minute from the same address write nothing', async () => {
    const u = await t.verifiedUser();
    const sid = jwtPayload(u.token).sid as string;
    const before = await row(sid);
    for (let i = 0; i < 5; i++) {
      const res = await refresh(u.token);
      expect(res.status).toBe(200);
      expect(jwtPayload(res.body.token).sid).toBe(sid);
    }
    expect(await row(sid)).toEqual(before);
  });

  it('a last seen older than a minute is moved to now, once', async () => {
    const u = await t.verifiedUser();
    const sid = jwtPayload(u.token).sid as string;
    const old = minutesAgo(2);
    await setLastSeen(sid, old);
    const started = minutesAgo(0);
    expect((await refresh(u.token)).status).toBe(200);
    const moved = await row(sid);
    expect(moved.last_seen > old).toBe(true);
    expect(moved.last_seen >= started).toBe(true);
    expect((await refresh(u.token)).status).toBe(200);
    expect(await row(sid)).toEqual(moved);
  });

  it('a refresh from another address is written at once, with that address', async () => {
    const u = await t.verifiedUser();
    const sid = jwtPayload(u.token).sid as string;
    const before = await row(sid);
    const res = await refresh(u.token, '203.0.113.7');
    expect(res.status).toBe(200);
    const after = await row(sid);
    expect(after.ip).toBe('203.0.113.7');
    expect(after.ip).not.toBe(before.ip);
    expect(after.last_seen >= before.last_seen).toBe(true);
    // Back on the first address: written again.
    expect((await refresh(u.token)).status).toBe(200);
    expect((await row(sid)).ip).toBe(before.ip);
  });

  it('the sessions list still shows the last seen a refresh wrote', async () => {
    const u = await t.verifiedUser();
    const sid = jwtPayload(u.token).sid as string;
    await setLastSeen(sid, minutesAgo(5));
    const res = await refresh(u.token);
    const list = await t.get(PATHS.sessions, res.body.token);
    const mine = list.body.items.find((i: { id: string }) => i.id === sid);
    expect(mine.lastSeen).toBe((await row(sid)).last_seen);
    expect(mine.lastSeen > minutesAgo(1)).toBe(true);
  });
});
