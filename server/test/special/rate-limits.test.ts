import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import type { ApiResponse } from '../support/http.js';
import { DATABASES, startTestServer, uniqueEmail, type TestServer } from '../support/server.js';

const TOO_MANY = { data: {}, message: MSG[429], status: 429 };

/** A random documentation-range client address, unique per test. */
const ip = () => `198.51.${randomInt(0, 255)}.${randomInt(1, 254)}`;

function statuses(results: ApiResponse[]): number[] {
  return results.map((r) => r.status);
}

/**
 * Counters may be fixed windows aligned to the clock (the server's are): a burst that straddles a
 * window edge is legitimately split across two windows. Start each burst well inside a window.
 */
async function awayFromWindowEdge(windowMs: number, needMs = 4000): Promise<void> {
  const into = Date.now() % windowMs;
  if (into > windowMs - needMs) await new Promise((r) => setTimeout(r, windowMs - into + 50));
}

async function sequential(
  n: number,
  fn: (i: number) => Promise<ApiResponse>,
): Promise<ApiResponse[]> {
  const out: ApiResponse[] = [];
  for (let i = 0; i < n; i++) out.push(await fn(i));
  return out;
}

const badLogin = (t: TestServer, from: string, identity = uniqueEmail('rl')) =>
  t.request('POST', PATHS.login, {
    headers: { 'X-Forwarded-For': from },
    body: { identity, password: 'Wrong-password-123' },
  });

describe.each(DATABASES)('abuse limits (RATE_LIMITS=on, TRUST_PROXY=on) on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db, env: { RATE_LIMITS: 'on', TRUST_PROXY: 'on' } });
  });
  afterAll(() => t?.close());

  it('auth-with-password: 10 per minute per IP, the 11th is 429 with the exact envelope', async () => {
    const from = ip();
    await awayFromWindowEdge(60_000);
    const res = await sequential(11, () => badLogin(t, from));
    expect(statuses(res)).toEqual([...Array(10).fill(400), 429]);
    expect(res[10]!.body).toEqual(TOO_MANY);
    expect(res[10]!.headers['x-content-type-options']).toBe('nosniff');
    // Another client is not affected.
    expect((await badLogin(t, ip())).status).toBe(400);
  });

  it('auth-with-password: 10 per 15 minutes per account email, across IPs and letter case', async () => {
    const email = uniqueEmail('target');
    await awayFromWindowEdge(15 * 60_000);
    const res = await sequential(11, (i) => badLogin(t, ip(), i % 2 ? email.toUpperCase() : email));
    expect(statuses(res)).toEqual([...Array(10).fill(400), 429]);
    expect(res[10]!.body).toEqual(TOO_MANY);
    // Another email from a fresh IP still gets an answer.
    expect((await badLogin(t, ip())).status).toBe(400);
  });

  it('sign-up: 10 per minute per IP', async () => {
    const from = ip();
    await awayFromWindowEdge(60_000);
    const res = await sequential(11, () =>
      t.request('POST', PATHS.records, { headers: { 'X-Forwarded-For': from }, body: {} }),
    );
    expect(statuses(res)).toEqual([...Array(10).fill(400), 429]);
    expect(res[10]!.body).toEqual(TOO_MANY);
  });

  it.each([PATHS.requestVerification, PATHS.requestReset])(
    '%s: 5 per minute per IP',
    async (path) => {
      const from = ip();
      await awayFromWindowEdge(60_000);
      const res = await sequential(6, () =>
        t.request('POST', path, {
          headers: { 'X-Forwarded-For': from },
          body: { email: uniqueEmail() },
        }),
      );
      expect(statuses(res)).toEqual([...Array(5).fill(204), 429]);
      expect(res[5]!.body).toEqual(TOO_MANY);
    },
  );

  it.each([PATHS.confirmVerification, PATHS.confirmReset])(
    '%s: 10 per minute per IP',
    async (path) => {
      const from = ip();
      await awayFromWindowEdge(60_000);
      const res = await sequential(11, () =>
        t.request('POST', path, { headers: { 'X-Forwarded-For': from }, body: { token: 'x' } }),
      );
      expect(statuses(res)).toEqual([...Array(10).fill(400), 429]);
      expect(res[10]!.body).toEqual(TOO_MANY);
    },
  );

  it('invite generation: 10 per minute per user', async () => {
    const initial = await t.initialUser();
    await awayFromWindowEdge(60_000);
    const res = await sequential(11, () =>
      t.request('POST', PATHS.generate, {
        headers: { Authorization: initial.token, 'X-Forwarded-For': ip() },
        body: {},
      }),
    );
    expect(statuses(res)).toEqual([...Array(10).fill(200), 429]);
    expect(res[10]!.body).toEqual(TOO_MANY);
  });

  it('everything under /api/: 300 per 10 seconds per IP', async () => {
    const from = ip();
    await awayFromWindowEdge(10_000, 3000);
    const res: ApiResponse[] = [];
    for (let batch = 0; batch < 6; batch++) {
      res.push(
        ...(await Promise.all(
          Array.from({ length: 50 }, () =>
            t.request('GET', PATHS.health, { headers: { 'X-Forwarded-For': from } }),
          ),
        )),
      );
    }
    expect(res.filter((r) => r.status === 200)).toHaveLength(300);
    const extra = await t.request('GET', '/api/nope', { headers: { 'X-Forwarded-For': from } });
    expect(extra.status).toBe(429);
    expect(extra.body).toEqual(TOO_MANY);
    expect(
      (await t.request('GET', PATHS.health, { headers: { 'X-Forwarded-For': ip() } })).status,
    ).toBe(200);
  });
});

describe('abuse limits with TRUST_PROXY off', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite', env: { RATE_LIMITS: 'on' } });
  });
  afterAll(() => t?.close());

  it('X-Forwarded-For is ignored: a changing header does not escape the per-IP limit', async () => {
    await awayFromWindowEdge(60_000);
    const res = await sequential(11, () => badLogin(t, ip()));
    expect(statuses(res)).toEqual([...Array(10).fill(400), 429]);
    expect(res[10]!.body).toEqual(TOO_MANY);
  });
});

describe('abuse limits are off with RATE_LIMITS=off', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db: 'sqlite', env: { RATE_LIMITS: 'off' } });
  });
  afterAll(() => t?.close());

  it('12 request-verification calls in a row all answer 204', async () => {
    const res = await sequential(12, () =>
      t.post(PATHS.requestVerification, { email: uniqueEmail() }),
    );
    expect(statuses(res)).toEqual(Array(12).fill(204));
  });
});

describe('abuse limits shared through Redis (REDIS_URL)', () => {
  const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    const env = { RATE_LIMITS: 'on', TRUST_PROXY: 'on', REDIS_URL };
    a = await startTestServer({ db: 'postgres', env });
    b = await startTestServer({ db: 'postgres', env, shareDatabaseOf: a });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('the login limit holds with Redis counters', async () => {
    const from = ip();
    await awayFromWindowEdge(60_000);
    const res = await sequential(11, () => badLogin(a, from));
    expect(statuses(res)).toEqual([...Array(10).fill(400), 429]);
    expect(res[10]!.body).toEqual(TOO_MANY);
  });

  it('two instances share one counter: 6 logins on one + 5 on the other → the 11th is 429', async () => {
    const from = ip();
    await awayFromWindowEdge(60_000);
    const first = await sequential(6, () => badLogin(a, from));
    const second = await sequential(5, () => badLogin(b, from));
    expect([...statuses(first), ...statuses(second)]).toEqual([...Array(10).fill(400), 429]);
  });
});
