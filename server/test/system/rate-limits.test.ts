import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MSG, PATHS, subjects } from '../support/contract.js';
import { type ApiResponse, freshAddress, type Json } from '../support/http.js';
import { tokenFromMail } from '../support/mail.js';
import { RedisProcess } from '../support/redis.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';

const TOO_MANY = { data: {}, message: MSG[429], status: 429 };

const ip = freshAddress;

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

const goodLogin = (t: TestServer, from: string, user: User) =>
  t.request('POST', PATHS.login, {
    headers: { 'X-Forwarded-For': from },
    body: { identity: user.email, password: user.password },
  });

/** A random documentation-range IPv6 /64 prefix (four groups), unique per test. */
const ipv6Prefix = () =>
  `2001:db8:${randomInt(0, 0xffff).toString(16)}:${randomInt(0, 0xffff).toString(16)}`;

describe.each(DATABASES)('abuse limits (RATE_LIMITS=on, TRUST_PROXY=1) on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db, env: { RATE_LIMITS: 'on', TRUST_PROXY: '1' } });
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

  it('sign-in failures from one address do not lock the owner out: the right password from another address signs in', async () => {
    // The initial user: making another user would use up invite generation (tested below).
    const owner = await t.initialUser();
    const attacker = ip();
    await awayFromWindowEdge(60_000);
    const res = await sequential(10, (i) =>
      badLogin(t, attacker, i % 2 ? owner.email.toUpperCase() : owner.email),
    );
    expect(statuses(res)).toEqual(Array(10).fill(400));
    expect((await goodLogin(t, ip(), owner)).status).toBe(200);
    const eleventh = await badLogin(t, attacker, owner.email);
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toEqual(TOO_MANY);
  });

  it('IPv6 clients count per /64: two addresses of one /64 share the per-IP budget', async () => {
    const prefix = ipv6Prefix();
    await awayFromWindowEdge(60_000);
    const res = await sequential(11, (i) =>
      badLogin(t, i % 2 ? `${prefix}:0:0:0:a` : `${prefix}::c:d:e`),
    );
    expect(statuses(res)).toEqual([...Array(10).fill(400), 429]);
    expect(res[10]!.body).toEqual(TOO_MANY);
    // The next /64 has a budget of its own.
    expect((await badLogin(t, `${ipv6Prefix()}::b`)).status).toBe(400);
  });

  it.each([
    ['the second step of two-step sign-in', PATHS.authWithTotp, 10],
    ['sign-in with a passkey', PATHS.authWithPasskey, 10],
    ['passkey sign-in options', PATHS.passkeyLoginOptions, 20],
  ])('%s counts per /64 too: %s allows %i, then 429', async (_name, path, max) => {
    const prefix = ipv6Prefix();
    await awayFromWindowEdge(60_000);
    const res = await sequential(max + 1, (i) =>
      t.request('POST', path, {
        headers: { 'X-Forwarded-For': `${prefix}::${(i + 1).toString(16)}` },
        body: {},
      }),
    );
    expect(statuses(res).slice(0, max)).not.toContain(429);
    expect(res[max]!.status).toBe(429);
    expect(res[max]!.body).toEqual(TOO_MANY);
  });

  it('an IPv4-mapped IPv6 address counts as its IPv4 address', async () => {
    const v4 = ip();
    await awayFromWindowEdge(60_000);
    const res = await sequential(11, (i) => badLogin(t, i % 2 ? `::ffff:${v4}` : v4));
    expect(statuses(res)).toEqual([...Array(10).fill(400), 429]);
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

  it('the /api limit counts /api however the path is spelt (/%61pi, /API, //api)', async () => {
    const from = ip();
    const get = (path: string) => t.request('GET', path, { headers: { 'X-Forwarded-For': from } });
    await awayFromWindowEdge(10_000, 3000);
    const res: ApiResponse[] = [];
    for (let batch = 0; batch < 6; batch++) {
      res.push(...(await Promise.all(Array.from({ length: 40 }, () => get('/%61pi/health')))));
      res.push(...(await Promise.all(Array.from({ length: 5 }, () => get('/API/health')))));
      res.push(...(await Promise.all(Array.from({ length: 5 }, () => get('//api/health')))));
    }
    expect(res.filter((r) => r.status === 200)).toHaveLength(240);
    expect(res.filter((r) => r.status === 404)).toHaveLength(60);
    const extra = await get(PATHS.health);
    expect(extra.status).toBe(429);
    expect(extra.body).toEqual(TOO_MANY);
  });
});

describe('sign-in failures: per email and address, under a wider per-email ceiling (moved clock)', () => {
  const MIN = 60_000;
  const WINDOW = 15 * MIN;
  let t: TestServer;
  /**
   * Moves the clock forward to just after the start of the next 15-minute window, where the
   * windows of every limit start afresh; the server runs in this process, so its clock moves too.
   * Only `Date` is faked (timers stay real), and the clock only ever moves forward.
   */
  const toNextWindow = () => vi.setSystemTime(Math.ceil(Date.now() / WINDOW) * WINDOW + 1000);
  const later = (ms: number) => vi.setSystemTime(Date.now() + ms);

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    t = await startTestServer({ db: 'sqlite', env: { RATE_LIMITS: 'on', TRUST_PROXY: '1' } });
  });
  afterAll(async () => {
    await t?.close();
    vi.useRealTimers();
  });

  it("10 failures from address A refuse A for that email for 15 minutes, not the owner's right password from B", async () => {
    const owner = await t.verifiedUser();
    const [a, b] = [ip(), ip()];
    toNextWindow();
    const res = await sequential(10, (i) =>
      badLogin(t, a, i % 2 ? owner.email.toUpperCase() : ` ${owner.email}`),
    );
    expect(statuses(res)).toEqual(Array(10).fill(400));
    expect((await goodLogin(t, b, owner)).status).toBe(200);
    // Past A's per-minute budget: what refuses A now is the failure count for this email.
    later(2 * MIN);
    const refused = await badLogin(t, a, owner.email);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY);
    expect((await goodLogin(t, a, owner)).status).toBe(429);
    // A may still sign in to another account, and the owner still signs in from B.
    expect((await badLogin(t, a)).status).toBe(400);
    expect((await goodLogin(t, b, owner)).status).toBe(200);
    // Two windows later, A's failures are forgotten.
    later(2 * WINDOW);
    expect((await goodLogin(t, a, owner)).status).toBe(200);
  });

  it('only failures count: right passwords in between do not use up the budget', async () => {
    const owner = await t.verifiedUser();
    const c = ip();
    toNextWindow();
    expect(statuses(await sequential(9, () => badLogin(t, c, owner.email)))).toEqual(
      Array(9).fill(400),
    );
    expect((await goodLogin(t, c, owner)).status).toBe(200);
    later(2 * MIN);
    expect((await goodLogin(t, c, owner)).status).toBe(200);
    expect((await badLogin(t, c, owner.email)).status).toBe(400);
    expect((await badLogin(t, c, owner.email)).status).toBe(429);
  });

  it('100 failures for one email from many addresses reach the ceiling: every address is refused', async () => {
    const owner = await t.verifiedUser();
    toNextWindow();
    const addresses = Array.from({ length: 10 }, ip);
    const res = (
      await Promise.all(
        addresses.map((from) => sequential(10, () => badLogin(t, from, owner.email))),
      )
    ).flat();
    expect(statuses(res)).toEqual(Array(100).fill(400));
    const refused = await badLogin(t, ip(), owner.email);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(TOO_MANY);
    // The ceiling is the price of stopping distributed guessing: it holds for the owner too.
    expect((await goodLogin(t, ip(), owner)).status).toBe(429);
    // Other accounts are not affected.
    expect((await badLogin(t, ip())).status).toBe(400);
  });
});

describe.each(DATABASES)(
  'confirm-email-change: wrong passwords are sign-in failures of the account (moved clock) on %s',
  (db) => {
    const MIN = 60_000;
    const WINDOW = 15 * MIN;
    const WRONG = 'Wrong-Password-99';
    let t: TestServer;
    // As in the sign-in failures block above: windows start afresh after the next 15-minute edge.
    const toNextWindow = () => vi.setSystemTime(Math.ceil(Date.now() / WINDOW) * WINDOW + 1000);
    const later = (ms: number) => vi.setSystemTime(Date.now() + ms);

    beforeAll(async () => {
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      t = await startTestServer({ db, env: { RATE_LIMITS: 'on', TRUST_PROXY: '1' } });
    });
    afterAll(async () => {
      await t?.close();
      vi.useRealTimers();
    });

    /** A verified member and the token of the email-change link they asked for. */
    async function memberWithLink(): Promise<{ owner: User; newEmail: string; token: string }> {
      const owner = await t.verifiedUser();
      const newEmail = uniqueEmail('moved');
      const res = await t.post(PATHS.requestEmailChange, { newEmail }, owner.token);
      expect(res.status, res.text).toBe(204);
      const mail = await t.mail.waitForMailTo(newEmail, subjects().emailChange);
      const token = tokenFromMail(mail, `${APP_URL}/confirm-email-change?token=`);
      return { owner, newEmail, token };
    }

    const confirm = (from: string, token: string, password: string) =>
      t.request('POST', PATHS.confirmEmailChange, {
        headers: { 'X-Forwarded-For': from },
        body: { token, password },
      });

    it('10 wrong passwords from A refuse A for that account, at sign-in too; the right one from B still works', async () => {
      toNextWindow();
      const { owner, newEmail, token } = await memberWithLink();
      const [a, b] = [ip(), ip()];
      expect(statuses(await sequential(10, () => confirm(a, token, WRONG)))).toEqual(
        Array(10).fill(400),
      );
      // Past A's per-minute confirm budget: what refuses A now is the account's failure count.
      later(2 * MIN);
      const refused = await confirm(a, token, owner.password);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(TOO_MANY);
      expect((await goodLogin(t, a, owner)).status).toBe(429);
      // Below the limits elsewhere, the right password still moves the account.
      expect((await confirm(b, token, owner.password)).status).toBe(204);
      const moved = await goodLogin(t, b, { ...owner, email: newEmail });
      expect(moved.status).toBe(200);
      // Each guess is in the member's log.
      const events = await t.get(`${PATHS.securityEvents}?perPage=100`, moved.body.token);
      const guesses = (events.body.items as Json[]).filter(
        (e) => e.type === 'email_changed' && e.outcome === 'failure',
      );
      expect(guesses).toHaveLength(10);
    });

    it('100 wrong passwords from many addresses reach the per-account ceiling: 429 from anywhere, for the right password too', async () => {
      toNextWindow();
      const { owner, token } = await memberWithLink();
      const addresses = Array.from({ length: 10 }, ip);
      const res = (
        await Promise.all(
          addresses.map((from) => sequential(10, () => confirm(from, token, WRONG))),
        )
      ).flat();
      expect(statuses(res)).toEqual(Array(100).fill(400));
      const refused = await confirm(ip(), token, owner.password);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(TOO_MANY);
      expect((await goodLogin(t, ip(), owner)).status).toBe(429);
    });
  },
);

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
    const env = { RATE_LIMITS: 'on', TRUST_PROXY: '1', REDIS_URL };
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

describe('counter keys have a fixed size, whatever the input (own redis-server)', () => {
  let redis: RedisProcess;
  let t: TestServer;
  beforeAll(async () => {
    redis = await RedisProcess.start();
    const env = { RATE_LIMITS: 'on', TRUST_PROXY: '1', REDIS_URL: redis.url };
    t = await startTestServer({ db: 'sqlite', env });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it('a 60 KB sign-in identity does not become a Redis key; emails are stored as digests', async () => {
    const huge = `${'x'.repeat(60_000)}@example.com`;
    const from = ip();
    expect((await badLogin(t, from, huge)).status).toBe(400);
    expect((await badLogin(t, from, huge.slice(-300))).status).toBe(400);
    const email = uniqueEmail('digest');
    expect((await badLogin(t, from, email)).status).toBe(400);
    const keys = await redis.keys('gatehouse:rl:*');
    // /api and login for the address, the two failure counters for the well-formed email only.
    const names = new Set(keys.map((key) => key.split(':')[2]));
    expect([...names].sort()).toEqual(['api', 'login', 'login-fail', 'login-fail-email']);
    expect(keys.filter((key) => key.includes(':login-fail-email:'))).toHaveLength(1);
    for (const key of keys) {
      expect(key.length).toBeLessThanOrEqual(64);
      expect(key).not.toContain('xxxx');
      expect(key).not.toContain(email);
      expect(key).not.toContain(from);
    }
  });
});
