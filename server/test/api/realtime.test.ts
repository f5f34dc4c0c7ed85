import { randomInt } from 'node:crypto';
import net from 'node:net';
import type { RecordSubscription } from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { waitUntil } from '../support/ports.js';
import { openStream, type RawStream } from '../support/realtime.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import {
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
} from '../support/server.js';
import { freshAddress } from '../support/http.js';

/**
 * PocketBase's realtime (GET/POST /api/realtime) and OAuth2 redirect target, driven by the
 * official SDK (`collection.subscribe`, `pb.realtime`) as the web app uses them, and by hand for
 * the refusals.
 */
const REALTIME = '/api/realtime';
const REDIRECT = '/api/oauth2-redirect';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(DATABASES)('realtime on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    // TRUST_PROXY lets a test speak from another address (X-Forwarded-For).
    t = await startTestServer({ db, env: { TRUST_PROXY: '1' } });
    await t.initialUser();
  });
  afterAll(() => t?.close());

  const subscribe = (clientId: string, subscriptions: unknown, token?: string) =>
    t.post(REALTIME, { clientId, subscriptions }, token);

  it('opens a stream whose first message is PB_CONNECT with the client id', async () => {
    const stream = await openStream(t.url);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream');
      expect(stream.headers['cache-control']).toBe('no-store');
      expect(stream.headers['x-accel-buffering']).toBe('no');
      const [connect] = stream.messages;
      expect(connect!.event).toBe('PB_CONNECT');
      expect(stream.clientId).toMatch(/^[A-Za-z0-9]{40}$/);
      expect(connect!.id).toBe(stream.clientId);
      expect(JSON.parse(connect!.data)).toEqual({ clientId: stream.clientId });
    } finally {
      stream.close();
    }
  });

  it('a member gets updates of their own record through collection.subscribe', async () => {
    const u = await t.verifiedUser();
    const pb = sdkClient(t.url, u.token, u.record);
    const seen: RecordSubscription[] = [];
    try {
      await pb.collection('users').subscribe(u.id, (e) => seen.push(e));
      expect((await t.patch(PATHS.record(u.id), { emailVisibility: true }, u.token)).status).toBe(
        200,
      );
      await waitUntil(() => seen.length > 0, 10_000, 'the update event');
      expect(seen[0]!.action).toBe('update');
      expect(seen[0]!.record).toMatchObject({
        id: u.id,
        collectionName: 'users',
        email: u.email,
        emailVisibility: true,
      });
      expect(seen[0]!.record).not.toHaveProperty('password_hash');
      expect(seen[0]!.record).not.toHaveProperty('tokenKey');
    } finally {
      pb.realtime.unsubscribe();
    }
  });

  it('the owner’s invite_codes subscription drops a code the moment an invitee uses it', async () => {
    const owner = await t.verifiedUser();
    const list = await t.get(PATHS.codes, owner.token);
    const code = (list.body.codes as { id: string; code: string }[])[0]!;
    const pb = sdkClient(t.url, owner.token, owner.record);
    const seen: RecordSubscription[] = [];
    try {
      await pb.collection('invite_codes').subscribe('*', (e) => seen.push(e));
      const started = Date.now();
      expect((await t.signUp(code.code, uniqueEmail('invitee'), strongPassword())).status).toBe(
        200,
      );
      await waitUntil(() => seen.length > 0, 10_000, 'the delete event');
      expect(Date.now() - started).toBeLessThan(5000);
      expect(seen).toEqual([
        {
          action: 'delete',
          record: expect.objectContaining({ id: code.id, collectionName: 'invite_codes' }),
        },
      ]);
    } finally {
      pb.realtime.unsubscribe();
    }
  });

  it('never sends one member another member’s records, whatever they subscribe to', async () => {
    const a = await t.verifiedUser();
    const b = await t.verifiedUser();
    const codeOfA = ((await t.get(PATHS.codes, a.token)).body.codes as { code: string }[])[0]!;
    const pbA = sdkClient(t.url, a.token, a.record);
    const pbB = sdkClient(t.url, b.token, b.record);
    const guest = sdkClient(t.url);
    const seenA: string[] = [];
    const seenB: string[] = [];
    const seenGuest: string[] = [];
    try {
      await pbA.collection('users').subscribe(a.id, (e) => seenA.push(`user ${e.action}`));
      await pbA.collection('invite_codes').subscribe('*', (e) => seenA.push(`code ${e.action}`));
      for (const topic of [`users/${a.id}`, 'users/*', 'users', 'invite_codes/*', 'invite_codes']) {
        await pbB.realtime.subscribe(topic, () => seenB.push(topic));
        await guest.realtime.subscribe(topic, () => seenGuest.push(topic));
      }
      await t.patch(PATHS.record(a.id), { emailVisibility: true }, a.token);
      await t.signUp(codeOfA.code, uniqueEmail('invitee'), strongPassword());
      await waitUntil(() => seenA.length === 2, 10_000, 'A’s two events');
      await sleep(500);
      expect(seenA.sort()).toEqual(['code delete', 'user update']);
      expect(seenB).toEqual([]);
      expect(seenGuest).toEqual([]);
    } finally {
      for (const pb of [pbA, pbB, guest]) pb.realtime.unsubscribe();
    }
  });

  it('refuses bad subscription requests as PocketBase does', async () => {
    const u = await t.verifiedUser();
    const other = await t.verifiedUser();
    const stream = await openStream(t.url);
    try {
      const missing = await subscribe('no-such-client', ['users/x']);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({
        data: {},
        message: 'Missing or invalid client id.',
        status: 404,
      });

      const empty = await t.post(REALTIME, {});
      expect(empty.status).toBe(400);
      expect(empty.body.data.clientId.code).toBe('validation_required');
      expect(empty.body.data).not.toHaveProperty('subscriptions');

      const tooMany = await subscribe(
        stream.clientId,
        Array.from({ length: 1001 }, (_, i) => `t${i}`),
      );
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.data.subscriptions.code).toBe('validation_length_too_long');

      const tooLong = await subscribe(stream.clientId, ['abc', 'a'.repeat(2501)]);
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.data.subscriptions['1'].code).toBe('validation_length_too_long');

      for (const body of [
        { clientId: stream.clientId, subscriptions: 'users/x' },
        { clientId: stream.clientId, subscriptions: [1] },
        { clientId: 42, subscriptions: [] },
        [stream.clientId],
      ]) {
        const res = await t.post(REALTIME, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.data).toEqual({});
      }

      // Another address than the stream's.
      const elsewhere = await t.request('POST', REALTIME, {
        body: { clientId: stream.clientId, subscriptions: ['users/x'] },
        headers: { 'X-Forwarded-For': '203.0.113.9' },
      });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.message).toBe('Invalid realtime client.');

      // Guest, then member: allowed; then another member, or a guest again: 403.
      expect((await subscribe(stream.clientId, ['users/x'])).status).toBe(204);
      expect((await subscribe(stream.clientId, [`users/${u.id}`], u.token)).status).toBe(204);
      expect((await subscribe(stream.clientId, [`users/${u.id}`], u.token)).status).toBe(204);
      const switched = await subscribe(stream.clientId, [`users/${other.id}`], other.token);
      expect(switched.status).toBe(403);
      expect(switched.body).toEqual({
        data: {},
        message: "The current and the previous request authorization don't match.",
        status: 403,
      });
      expect((await subscribe(stream.clientId, ['users/x'])).status).toBe(403);
      expect(stream.isEnded()).toBe(false);
    } finally {
      stream.close();
    }
  });

  it('ends a stream whose session was signed out from another device; this device’s stays', async () => {
    const u = await t.verifiedUser();
    const other = await t.login(u.email, u.password);
    const sessions = await t.get(PATHS.sessions, u.token);
    const otherSession = (sessions.body.items as { id: string; current: boolean }[]).find(
      (s) => !s.current,
    )!;
    const here = await openStream(t.url);
    const there = await openStream(t.url);
    try {
      expect((await subscribe(here.clientId, [`users/${u.id}`], u.token)).status).toBe(204);
      expect((await subscribe(there.clientId, [`users/${u.id}`], other.body.token)).status).toBe(
        204,
      );
      expect((await t.del(PATHS.session(otherSession.id), u.token)).status).toBe(204);
      await Promise.race([there.ended, sleep(2000)]);
      expect(there.isEnded()).toBe(true);
      await sleep(200);
      expect(here.isEnded()).toBe(false);
    } finally {
      here.close();
      there.close();
    }
  });

  it('a password change ends the other devices’ streams; account deletion sends delete and ends them all', async () => {
    const u = await t.verifiedUser();
    const second = await t.login(u.email, u.password);
    const here = await openStream(t.url);
    const there = await openStream(t.url);
    try {
      await subscribe(here.clientId, [`users/${u.id}`], u.token);
      await subscribe(there.clientId, [`users/${u.id}`], second.body.token);
      const newPassword = strongPassword();
      const changed = await t.patch(
        PATHS.record(u.id),
        { oldPassword: u.password, password: newPassword, passwordConfirm: newPassword },
        u.token,
      );
      expect(changed.status).toBe(200);
      await Promise.race([there.ended, sleep(2000)]);
      expect(there.isEnded()).toBe(true);
      // This device keeps its stream and hears of its record's change.
      await waitUntil(() => here.named(`users/${u.id}`).length > 0, 5000, 'the update');
      expect(here.isEnded()).toBe(false);

      const token = changed.headers['x-gatehouse-token'] as string;
      expect((await t.del(PATHS.record(u.id), token)).status).toBe(204);
      await Promise.race([here.ended, sleep(2000)]);
      expect(here.isEnded()).toBe(true);
      const events = here.named(`users/${u.id}`).map((m) => JSON.parse(m.data));
      expect(events.at(-1)).toMatchObject({ action: 'delete', record: { id: u.id } });
    } finally {
      here.close();
      there.close();
    }
  });

  it('drops a client that never reads; the others keep getting their events', async () => {
    const u = await t.verifiedUser();
    const pb = sdkClient(t.url, u.token, u.record);
    // A client that reads PB_CONNECT, subscribes to long topics (each event is then large for
    // it), and never reads again.
    const socket = net.connect(Number(new URL(t.url).port), '127.0.0.1');
    let received = '';
    const onData = (chunk: Buffer) => (received += chunk.toString());
    socket.on('data', onData);
    socket.write(`GET ${REALTIME} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await waitUntil(() => received.includes('PB_CONNECT'), 10_000, 'PB_CONNECT');
    const stalledId = /"clientId":"(\w+)"/.exec(received)![1]!;
    socket.off('data', onData);
    socket.pause();
    // 25 topics of 2,400 characters: 60 kB per event for it (the request body limit is 64 kB).
    const padding = 'x'.repeat(2400);
    const topics = Array.from({ length: 25 }, (_, i) => `users/${u.id}?n=${i}&p=${padding}`);
    const seen: RecordSubscription[] = [];
    try {
      expect((await subscribe(stalledId, topics, u.token)).status).toBe(204);
      await pb.collection('users').subscribe(u.id, (e) => seen.push(e));
      let dropped = false;
      for (let i = 0; i < 400 && !dropped; i++) {
        const started = Date.now();
        await t.patch(PATHS.record(u.id), { emailVisibility: i % 2 === 0 }, u.token);
        await waitUntil(() => seen.length === i + 1, 10_000, `event ${i + 1}`);
        expect(Date.now() - started).toBeLessThan(5000);
        // Once its unsent output passes the bound, the stalled client is gone: its id is unknown.
        if (i % 10 === 9) dropped = (await subscribe(stalledId, topics, u.token)).status === 404;
      }
      expect(dropped).toBe(true);
    } finally {
      pb.realtime.unsubscribe();
      socket.destroy();
    }
  });

  it('oauth2-redirect forwards state and code to the @oauth2 client, once', async () => {
    const pb = sdkClient(t.url);
    const seen: Record<string, unknown>[] = [];
    try {
      await pb.realtime.subscribe('@oauth2', (e) => seen.push(e));
      const state = pb.realtime.clientId;
      const ok = await t.get(`${REDIRECT}?state=${state}&code=the-code`);
      expect(ok.status).toBe(200);
      expect(ok.headers['content-type']).toContain('text/html');
      expect(ok.text).toContain(
        'Auth completed. You can close this window and go back to the app.',
      );
      await waitUntil(() => seen.length === 1, 10_000, 'the @oauth2 message');
      expect(seen[0]).toEqual({ state, code: 'the-code' });
      // The subscription is used up: a replayed redirect reaches nobody.
      const replay = await t.get(`${REDIRECT}?state=${state}&code=again`);
      expect(replay.text).toContain('Failed to authenticate.');
      await sleep(300);
      expect(seen).toHaveLength(1);
    } finally {
      pb.realtime.unsubscribe();
    }
  });

  it('oauth2-redirect: a provider error, a form post, a missing or foreign state, another address', async () => {
    const pb = sdkClient(t.url);
    const seen: Record<string, unknown>[] = [];
    try {
      await pb.realtime.subscribe('@oauth2', (e) => seen.push(e));
      const state = pb.realtime.clientId;
      // An unknown client fails; on PostgreSQL, once no instance has said that it holds it.
      for (const path of [REDIRECT, `${REDIRECT}?code=x`, `${REDIRECT}?state=unknown&code=x`]) {
        const res = await t.get(path);
        expect(res.status, path).toBe(200);
        expect(res.text, path).toContain(
          'Failed to authenticate. You can close this window and go back to the app to try again.',
        );
      }
      const foreign = await t.request('GET', `${REDIRECT}?state=${state}&code=x`, {
        headers: { 'X-Forwarded-For': '203.0.113.9' },
      });
      expect(foreign.text).toContain('Failed to authenticate.');
      await sleep(300);
      expect(seen).toEqual([]);

      const denied = await t.request('POST', REDIRECT, {
        raw: `state=${state}&error=access_denied`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
      expect(denied.status).toBe(200);
      expect(denied.text).toContain('Failed to authenticate.');
      await waitUntil(() => seen.length === 1, 10_000, 'the error message');
      expect(seen[0]).toEqual({ state, code: '', error: 'access_denied' });
    } finally {
      pb.realtime.unsubscribe();
    }
  });
});

/**
 * How many streams a client may hold (server/src/realtime/limits.ts): 100 open per network, from
 * the GET; 20 per member, from the subscription request that binds a stream to them. Each
 * instance counts its own. RATE_LIMITS=on, as in production.
 */
describe.each(DATABASES)('realtime stream limits on %s', (db) => {
  const TOO_MANY = { data: {}, message: MSG[429], status: 429 };
  const address = freshAddress;
  const ipv6Prefix = () =>
    `2001:db8:${randomInt(0, 0xffff).toString(16)}:${randomInt(0, 0xffff).toString(16)}`;
  let t: TestServer;
  const open: RawStream[] = [];
  beforeAll(async () => {
    t = await startTestServer({ db, env: { RATE_LIMITS: 'on', TRUST_PROXY: '1' } });
    await t.initialUser();
  });
  afterAll(async () => {
    for (const stream of open.splice(0)) stream.close();
    await t?.close();
  });

  /** Opens a stream from `from`; kept open until the end of the file unless the test closes it. */
  const openFrom = async (from: string) => {
    const stream = await openStream(t.url, { 'X-Forwarded-For': from });
    if (stream.status === 200) open.push(stream);
    return stream;
  };

  it('one address holds 100 open streams; the 101st is 429, and closing one frees its slot', async () => {
    const from = address();
    const streams = await Promise.all(Array.from({ length: 100 }, () => openFrom(from)));
    expect(streams.map((s) => s.status)).toEqual(Array(100).fill(200));
    expect(new Set(streams.map((s) => s.clientId)).size).toBe(100);

    // (A stream first: without the limit it would open, and a plain request would wait for ever.)
    expect((await openFrom(from)).status).toBe(429);
    const refused = await t.request('GET', REALTIME, { headers: { 'X-Forwarded-For': from } });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY);
    // Another address is not held by this one's streams.
    expect((await openFrom(address())).status).toBe(200);

    streams[0]!.close();
    await waitUntil(async () => (await openFrom(from)).status === 200, 5000, 'the freed slot');
    expect((await openFrom(from)).status).toBe(429);
  });

  it('an IPv6 client counts by its /64: 100 streams from several of its addresses, then 429', async () => {
    const prefix = ipv6Prefix();
    const streams = await Promise.all(
      Array.from({ length: 100 }, (_, i) => openFrom(`${prefix}::${(i + 1).toString(16)}`)),
    );
    expect(streams.map((s) => s.status)).toEqual(Array(100).fill(200));
    expect((await openFrom(`${prefix}:0:ab:cd:ef`)).status).toBe(429);
    expect((await openFrom(`${ipv6Prefix()}::1`)).status).toBe(200);
  });

  it('a member holds 20 streams: binding the 21st is 429, the SDK’s subscribe fails with it, and closing one frees a slot', async () => {
    const u = await t.verifiedUser();
    const from = address();
    const bind = (stream: RawStream) =>
      t.request('POST', REALTIME, {
        body: { clientId: stream.clientId, subscriptions: [`users/${u.id}`] },
        headers: { 'X-Forwarded-For': from, Authorization: u.token },
      });
    const streams = await Promise.all(Array.from({ length: 21 }, () => openFrom(from)));
    const answers = [];
    for (const stream of streams) answers.push(await bind(stream));
    expect(answers.map((a) => a.status)).toEqual([...Array(20).fill(204), 429]);
    expect(answers[20]!.body).toEqual(TOO_MANY);
    // Refused as the member's, the stream is still a guest's: a guest subscription works.
    const asGuest = await t.request('POST', REALTIME, {
      body: { clientId: streams[20]!.clientId, subscriptions: ['@oauth2'] },
      headers: { 'X-Forwarded-For': from },
    });
    expect(asGuest.status).toBe(204);

    // The web app's SDK, from another address: its subscribe rejects with the 429, and it closes
    // the stream it opened rather than reconnecting.
    const pb = sdkClient(t.url, u.token, u.record);
    const error = await sdkError(pb.collection('users').subscribe(u.id, () => {}));
    expect(error.status).toBe(429);
    expect(pb.realtime.isConnected).toBe(false);

    // Re-subscribing a stream already bound to the member is not one more.
    expect((await bind(streams[0]!)).status).toBe(204);
    streams[0]!.close();
    await waitUntil(async () => (await bind(streams[20]!)).status === 204, 5000, 'the freed slot');
    expect((await bind(await openFrom(from))).status).toBe(429);
  });
});
