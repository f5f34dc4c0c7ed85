import type { RecordSubscription } from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import { request } from '../support/http.js';
import { waitUntil } from '../support/ports.js';
import { openStream } from '../support/realtime.js';
import { sdkClient } from '../support/sdk.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import {
  createPgDatabase,
  startTestServer,
  testTokenSecret,
  uniqueEmail,
  type TestServer,
} from '../support/server.js';

/**
 * Realtime across instances: two server processes on one PostgreSQL database. An event raised
 * on one reaches the subscribers connected to the other (decisions 0034, 0035).
 */
const METRICS_TOKEN = 'realtime-metrics-token-0123456789';

/** The realtime clients connected to the instance at `url`, from its metrics. */
async function gauge(url: string): Promise<number> {
  const res = await request(url, 'GET', '/api/metrics', {
    headers: { Authorization: `Bearer ${METRICS_TOKEN}` },
  });
  return Number(/^gatehouse_realtime_connections (\d+)$/m.exec(res.text)?.[1]);
}

describe('realtime across two server processes on PostgreSQL', () => {
  let database: { url: string; drop: () => Promise<void> };
  // The in-process server makes members (mail); both processes share its database.
  let t: TestServer;
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    database = await createPgDatabase();
    const TOKEN_SECRET = testTokenSecret();
    t = await startTestServer({ db: 'postgres', databaseUrl: database.url, env: { TOKEN_SECRET } });
    await t.initialUser();
    const env = {
      DATABASE_URL: database.url,
      TOKEN_SECRET,
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      METRICS_TOKEN,
      // Their mail workers share the outbox: they send to the same receiver.
      SMTP_URL: t.mail.url,
    };
    a = await startServerProcess(env);
    b = await startServerProcess(env);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await t?.close();
    await database?.drop();
  });

  it('a code used through B leaves the owner’s list subscribed on A', async () => {
    const owner = await t.verifiedUser();
    const code = (
      (await t.get(PATHS.codes, owner.token)).body.codes as { id: string; code: string }[]
    )[0]!;
    const pb = sdkClient(a.url, owner.token, owner.record);
    const seen: RecordSubscription[] = [];
    try {
      await pb.collection('invite_codes').subscribe('*', (e) => seen.push(e));
      const signUp = await request(b.url, 'POST', PATHS.records, {
        body: {
          email: uniqueEmail('invitee'),
          password: 'Tidal-Lantern-b1b2b3b4',
          passwordConfirm: 'Tidal-Lantern-b1b2b3b4',
          inviteCode: code.code,
        },
      });
      expect(signUp.status).toBe(200);
      await waitUntil(() => seen.length > 0, 10_000, 'the delete on A');
      expect(seen[0]).toMatchObject({ action: 'delete', record: { id: code.id } });
    } finally {
      pb.realtime.unsubscribe();
    }
  });

  it('signing out a device on B ends its stream on A', async () => {
    const u = await t.verifiedUser();
    const other = await request(b.url, 'POST', PATHS.login, {
      body: { identity: u.email, password: u.password },
    });
    const stream = await openStream(a.url);
    try {
      const sub = await request(a.url, 'POST', '/api/realtime', {
        body: { clientId: stream.clientId, subscriptions: [`users/${u.id}`] },
        headers: { Authorization: other.body.token },
      });
      expect(sub.status).toBe(204);
      const sessions = await request(b.url, 'GET', PATHS.sessions, {
        headers: { Authorization: u.token },
      });
      const id = (sessions.body.items as { id: string; current: boolean }[]).find(
        (s) => !s.current,
      )!.id;
      expect(
        (await request(b.url, 'DELETE', PATHS.session(id), { headers: { Authorization: u.token } }))
          .status,
      ).toBe(204);
      await Promise.race([stream.ended, new Promise((r) => setTimeout(r, 2000))]);
      expect(stream.isEnded()).toBe(true);
    } finally {
      stream.close();
    }
  });

  it('an OAuth2 redirect landing on B reaches the popup’s client on A', async () => {
    const pb = sdkClient(a.url);
    const seen: Record<string, unknown>[] = [];
    try {
      await pb.realtime.subscribe('@oauth2', (e) => seen.push(e));
      const state = pb.realtime.clientId;
      const res = await request(b.url, 'GET', `/api/oauth2-redirect?state=${state}&code=c0de`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('Auth completed.');
      await waitUntil(() => seen.length === 1, 10_000, 'the @oauth2 message on A');
      expect(seen[0]).toEqual({ state, code: 'c0de' });
    } finally {
      pb.realtime.unsubscribe();
    }
  });

  it('an OAuth2 redirect for a client no instance holds fails on B, as PocketBase’s does', async () => {
    const pb = sdkClient(a.url);
    try {
      await pb.realtime.subscribe('@oauth2', () => {});
      // A's client, gone by the time the provider redirects (the app's tab was closed).
      const state = pb.realtime.clientId;
      pb.realtime.unsubscribe();
      await waitUntil(async () => (await gauge(a.url)) === 0, 10_000, 'A without clients');
      const res = await request(b.url, 'GET', `/api/oauth2-redirect?state=${state}&code=c0de`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('Failed to authenticate.');
    } finally {
      pb.realtime.unsubscribe();
    }
  });

  it('counts its realtime connections, and a stopped instance ends its streams cleanly', async () => {
    const streams = await Promise.all([openStream(b.url), openStream(b.url)]);
    try {
      expect(await gauge(b.url)).toBe(2);
      const stopping = b.stop();
      await Promise.race([
        Promise.all(streams.map((s) => s.ended)),
        new Promise((r) => setTimeout(r, 5000)),
      ]);
      expect(streams.every((s) => s.isEnded())).toBe(true);
      await stopping;
      expect(b.output()).not.toMatch(/"level":(50|60)/);
    } finally {
      for (const s of streams) s.close();
    }
  });
});
