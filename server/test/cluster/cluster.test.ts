import { randomInt } from 'node:crypto';
import https from 'node:https';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Instance, selfSignedCertificate, siteForTest, tempDir } from '../support/cluster.js';
import { MSG, PATHS, subjects } from '../support/contract.js';
import { request, type ApiResponse } from '../support/http.js';
import { MailReceiver, tokenFromMail } from '../support/mail.js';
import { startNginx, type NginxProxy } from '../support/nginx.js';
import { freePort, waitUntil } from '../support/ports.js';
import { RedisProcess } from '../support/redis.js';
import {
  APP_URL,
  createPgDatabase,
  inviteCodeFrom,
  strongPassword,
  testTokenSecret,
  uniqueEmail,
} from '../support/server.js';
import { TcpProxy } from '../support/tcp-proxy.js';

/**
 * Several machines for real (npm run test:cluster): the repository's nginx site
 * (deploy/nginx/gatehouse.conf) in front of three instances in their own processes, on a fresh
 * PostgreSQL database (reached through a TCP proxy the test can freeze) and a redis-server of the
 * test's own, mail through a real SMTP receiver. Every request goes through the balancer unless
 * it says otherwise, each from an address of its own (X-Forwarded-For, TRUST_PROXY=2: a CDN in
 * front of nginx) so that per-address limits do not get in the way where they are not the point.
 */
const S = subjects();
const UNAVAILABLE = { data: {}, message: MSG[503], status: 503 };
const INVITES_PER_USER = 40;
const STORM = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const anIp = () => `198.51.${randomInt(0, 256)}.${randomInt(1, 255)}`;

interface Call {
  body?: unknown;
  token?: string;
  ip?: string;
}

function call(base: string, method: string, path: string, c: Call = {}): Promise<ApiResponse> {
  return request(base, method, path, {
    ...(c.body === undefined ? {} : { body: c.body }),
    headers: {
      'X-Forwarded-For': c.ip ?? anIp(),
      ...(c.token ? { Authorization: c.token } : {}),
    },
  });
}

/** A request that could not even connect counts as status 0 (never expected through nginx). */
const settled = (p: Promise<ApiResponse>) =>
  p.catch((error: Error) => ({ status: 0, headers: {}, text: error.message, body: undefined }));

/** The 503 the API documents (and nginx's stand-in for it when no instance answered). */
function expectCleanUnavailable(res: ApiResponse): void {
  expect(res.body, res.text).toEqual(UNAVAILABLE);
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

function httpsGet(port: number, path: string): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      { host: '127.0.0.1', port, path, rejectUnauthorized: false, agent: false },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: undefined }),
        );
      },
    );
    req.on('error', reject);
  });
}

async function awayFromWindowEdge(windowMs: number, needMs = 25_000): Promise<void> {
  const into = Date.now() % windowMs;
  if (into > windowMs - needMs) await sleep(windowMs - into + 50);
}

describe('three instances behind nginx on PostgreSQL and Redis', () => {
  const mail = new MailReceiver();
  const instances: Instance[] = [];
  let database: { url: string; drop: () => Promise<void> };
  let pgProxy: TcpProxy;
  let redis: RedisProcess;
  let nginx: NginxProxy;
  let tlsPort = 0;
  let redirectPort = 0;
  let removeCertDir = () => {};
  let bootstrapLink = '';
  let lb = '';
  let root = { email: '', password: '', token: '' };

  const get = (path: string, c?: Call) => call(lb, 'GET', path, c);
  const post = (path: string, body: unknown, c: Call = {}) =>
    call(lb, 'POST', path, { ...c, body });

  async function verify(email: string): Promise<void> {
    expect((await post(PATHS.requestVerification, { email })).status).toBe(204);
    const m = await mail.waitForMailTo(email, S.verify, 15_000);
    const token = tokenFromMail(m, `${APP_URL}/verify-email?token=`);
    expect((await post(PATHS.confirmVerification, { token })).status).toBe(204);
  }

  async function signIn(email: string, password: string, ip?: string): Promise<string> {
    const res = await post(PATHS.login, { identity: email, password }, { ip });
    expect(res.status, res.text).toBe(200);
    return res.body.token as string;
  }

  async function member(code: string): Promise<{ email: string; password: string; token: string }> {
    const email = uniqueEmail('member');
    const password = strongPassword();
    const res = await post(PATHS.records, {
      email,
      password,
      passwordConfirm: password,
      inviteCode: code,
    });
    expect(res.status, res.text).toBe(200);
    await verify(email);
    return { email, password, token: await signIn(email, password) };
  }

  const db = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    await mail.start();
    database = await createPgDatabase();
    const target = new URL(database.url);
    pgProxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    redis = await RedisProcess.start();
    const env = {
      APP_URL,
      DATABASE_URL: pgProxy.via(database.url),
      TOKEN_SECRET: testTokenSecret(),
      REDIS_URL: redis.url,
      SMTP_URL: mail.url,
      MAIL_FROM: 'Gatehouse <no-reply@app.test>',
      MAIL_POLL_MS: '200',
      MAIL_RETRY_BASE_MS: '200',
      RATE_LIMITS: 'on',
      TRUST_PROXY: '2',
      INVITES_PER_USER: String(INVITES_PER_USER),
      LOG_LEVEL: 'warn',
    };
    for (const name of ['a', 'b', 'c']) instances.push(await Instance.create(name, env));
    // The first one makes the schema and prints the initial account's link; the others start
    // together on the migrated database.
    await instances[0]!.start();
    await Promise.all(instances.slice(1).map((i) => i.start()));
    bootstrapLink =
      /"initialAccountLink":"([^"]+)"/.exec(instances[0]!.output())?.[1] ??
      (() => {
        throw new Error(`no initial account link:\n${instances[0]!.output()}`);
      })();

    const [certDir, removeCerts] = tempDir('gh-cert-');
    removeCertDir = removeCerts;
    const { cert, key } = selfSignedCertificate(certDir);
    tlsPort = await freePort();
    redirectPort = await freePort();
    nginx = await startNginx({
      upstreams: [],
      config: (dir, port) =>
        siteForTest(dir, port, {
          upstreams: instances.map((i) => i.url),
          ports: { tls: tlsPort, redirect: redirectPort },
          cert,
          key,
        }),
    });
    lb = nginx.url;
  }, 180_000);

  afterAll(async () => {
    pgProxy?.thaw();
    await nginx?.stop();
    await Promise.all(instances.map((i) => i.close()));
    await redis?.stop();
    await pgProxy?.stop();
    await database?.drop();
    await mail.stop();
    removeCertDir();
  }, 60_000);

  it('the shipped site serves HTTPS with HSTS and redirects plain HTTP there', async () => {
    const health = await httpsGet(tlsPort, PATHS.health);
    expect(health.status).toBe(200);
    expect(health.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
    const plain = await request(`http://127.0.0.1:${redirectPort}`, 'GET', '/login');
    expect(plain.status).toBe(301);
    expect(plain.headers.location).toBe(`https://127.0.0.1/login`);
  });

  it('the whole member journey through the balancer: sign-up, mail, verify, sign in, invite, reset, delete', async () => {
    // The initial account, from the link the first instance printed.
    const email = uniqueEmail('initial');
    const password = strongPassword();
    const code = inviteCodeFrom(bootstrapLink);
    const made = await post(PATHS.records, {
      email,
      password,
      passwordConfirm: password,
      inviteCode: code,
    });
    expect(made.status, made.text).toBe(200);
    await verify(email);
    root = { email, password, token: await signIn(email, password) };

    // Invite: the initial account shares a code; it leaves their list once used.
    const codes = await get(PATHS.codes, { token: root.token });
    expect(codes.status).toBe(200);
    expect(codes.body.codes).toHaveLength(INVITES_PER_USER);
    const shared = codes.body.codes[0].code as string;
    const m = await member(shared);
    const after = await get(PATHS.codes, { token: root.token });
    expect(after.body.codes.map((c: { code: string }) => c.code)).not.toContain(shared);
    // ...who invites someone in turn.
    const theirs = await get(PATHS.codes, { token: m.token });
    expect(theirs.body.codes).toHaveLength(INVITES_PER_USER);
    const friend = await member(theirs.body.codes[0].code);

    // Reset: every instance refuses the old session at once, the new password works, the notice arrives.
    expect((await post(PATHS.requestReset, { email: m.email })).status).toBe(204);
    const resetMail = await mail.waitForMailTo(m.email, S.reset, 15_000);
    const token = tokenFromMail(resetMail, `${APP_URL}/reset-password?token=`);
    const newPassword = strongPassword();
    const reset = await post(PATHS.confirmReset, {
      token,
      password: newPassword,
      passwordConfirm: newPassword,
    });
    expect(reset.status, reset.text).toBe(204);
    for (const i of instances) {
      expect((await call(i.url, 'GET', PATHS.codes, { token: m.token })).status, i.name).toBe(401);
    }
    expect((await post(PATHS.login, { identity: m.email, password })).status).toBe(400);
    const fresh = await signIn(m.email, newPassword);
    await mail.waitForMailTo(m.email, S.passwordChanged, 15_000);

    // Delete: the account and its sessions are gone everywhere; whom it invited stays.
    const me = await post(PATHS.refresh, {}, { token: fresh });
    expect(me.status).toBe(200);
    expect(
      (await call(lb, 'DELETE', PATHS.record(me.body.record.id), { token: fresh })).status,
    ).toBe(204);
    for (const i of instances) {
      expect((await call(i.url, 'GET', PATHS.codes, { token: fresh })).status, i.name).toBe(401);
    }
    expect((await post(PATHS.login, { identity: m.email, password: newPassword })).status).toBe(
      400,
    );
    expect((await get(PATHS.codes, { token: friend.token })).status).toBe(200);
  }, 90_000);

  it('the sign-in limit holds across instances: the eleventh attempt is refused by every one', async () => {
    await awayFromWindowEdge(60_000);
    const ip = anIp();
    const statuses: number[] = [];
    for (let n = 0; n < 11; n++) {
      statuses.push(
        (
          await post(
            PATHS.login,
            { identity: uniqueEmail('guess'), password: 'Wrong-guess-123' },
            { ip },
          )
        ).status,
      );
    }
    expect(statuses).toEqual([...Array(10).fill(400), 429]);
    // Each instance, asked directly for the same address, already counts it as over the limit.
    for (const i of instances) {
      const res = await call(i.url, 'POST', PATHS.login, {
        ip,
        body: { identity: root.email, password: root.password },
      });
      expect(res.status, i.name).toBe(429);
    }
  }, 60_000);

  it('a revoked session is refused by every instance within a second', async () => {
    const token = await signIn(root.email, root.password);
    for (const i of instances) {
      expect((await call(i.url, 'GET', PATHS.codes, { token })).status, i.name).toBe(200);
    }
    expect((await post(PATHS.logout, {}, { token })).status).toBe(204);
    const ended = Date.now();
    for (const i of instances) {
      await waitUntil(
        async () => (await call(i.url, 'GET', PATHS.codes, { token })).status === 401,
        1000 - (Date.now() - ended),
        `${i.name} to refuse the ended session`,
      );
    }
    expect(Date.now() - ended).toBeLessThanOrEqual(1000);
    expect((await get(PATHS.codes, { token: root.token })).status).toBe(200);
  }, 30_000);

  /** Runs mixed traffic through the balancer until `stop` resolves; returns every answer. */
  async function traffic(stop: Promise<void>, workers = 6): Promise<ApiResponse[]> {
    let done = false;
    void stop.then(() => (done = true));
    const answers: ApiResponse[] = [];
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        for (let n = 0; !done; n++) {
          const pick = (n + w) % 3;
          const res = await settled(
            pick === 0
              ? get(PATHS.codes, { token: root.token })
              : pick === 1
                ? post(PATHS.login, { identity: root.email, password: root.password })
                : post(PATHS.login, {
                    identity: uniqueEmail('nobody'),
                    password: 'Wrong-guess-123',
                  }),
          );
          answers.push(res);
          await sleep(20);
        }
      }),
    );
    return answers;
  }

  it('Redis stopped and started again under traffic: clean answers throughout, counting in Redis again after', async () => {
    let end = () => {};
    const running = traffic(new Promise<void>((resolve) => (end = resolve)));
    await sleep(1000);
    await redis.stop('SIGKILL');
    await sleep(3000);
    await redis.start();
    await sleep(3000);
    end();
    const answers = await running;
    const unclean = answers.filter((a) => ![200, 400].includes(a.status));
    expect(unclean.map((a) => `${a.status} ${a.text.slice(0, 200)}`)).toEqual([]);
    expect(answers.length).toBeGreaterThan(12);
    // Back on the same port, empty: every instance counts there again.
    await waitUntil(
      async () => {
        await post(PATHS.login, { identity: uniqueEmail('probe'), password: 'Wrong-guess-123' });
        return (await redis.keys('gatehouse:rl:*')).length > 0;
      },
      15_000,
      'counts in Redis again',
    );
  }, 60_000);

  it('PostgreSQL stalling under traffic: the documented 503 only, health stays up, all recover', async () => {
    let end = () => {};
    const running = traffic(new Promise<void>((resolve) => (end = resolve)));
    await sleep(1000);
    pgProxy.freeze();
    try {
      await sleep(1500);
      const health = await get(PATHS.health);
      expect(health.status).toBe(200);
      const ready = await get(PATHS.ready);
      expect(ready.status).toBe(503);
      // Past the database time-out (5 s, and a second for the client): requests under way end in 503.
      await sleep(6500);
    } finally {
      pgProxy.thaw();
    }
    // Recovery: every instance answers the signed-in read again.
    for (const i of instances) {
      await waitUntil(
        async () => (await call(i.url, 'GET', PATHS.codes, { token: root.token })).status === 200,
        20_000,
        `${i.name} to recover`,
      );
    }
    end();
    const answers = await running;
    const unclean = answers.filter((a) => ![200, 400, 503].includes(a.status));
    expect(unclean.map((a) => `${a.status} ${a.text.slice(0, 200)}`)).toEqual([]);
    const unavailable = answers.filter((a) => a.status === 503);
    expect(unavailable.length).toBeGreaterThan(0);
    for (const res of unavailable) expectCleanUnavailable(res);
    expect((await get(PATHS.ready)).status).toBe(200);
  }, 90_000);

  it('a sign-up storm while one instance is killed (SIGKILL) and restarted: clean answers, no half-made account, no code used twice, no queued mail lost', async () => {
    // The codes to race for: the initial account's unused ones, each wanted by several sign-ups.
    const list = await get(PATHS.codes, { token: root.token });
    const pool = (list.body.codes as { code: string }[]).map((c) => c.code);
    expect(pool.length).toBeGreaterThan(STORM / 10);
    const flows = Array.from({ length: STORM }, (_, n) => ({
      email: uniqueEmail(`storm${n}`),
      password: strongPassword(),
      code: pool[n % pool.length]!,
      ip: anIp(),
      signUp: undefined as ApiResponse | undefined,
      verification: undefined as ApiResponse | undefined,
    }));
    const victim = instances[1]!;
    let answered = 0;
    const storm = Promise.all(
      flows.map(async (f) => {
        f.signUp = await settled(
          post(
            PATHS.records,
            {
              email: f.email,
              password: f.password,
              passwordConfirm: f.password,
              inviteCode: f.code,
            },
            { ip: f.ip },
          ),
        );
        answered += 1;
        if (f.signUp.status === 200) {
          f.verification = await settled(
            post(PATHS.requestVerification, { email: f.email }, { ip: f.ip }),
          );
        }
      }),
    );
    await waitUntil(() => answered >= STORM / 4, 120_000, 'a quarter of the storm');
    await victim.kill('SIGKILL');
    const restarted = victim.start();
    await storm;
    await restarted;

    // Every answer is one the API documents: made, refused (the code went to someone else), or 503.
    const unclean = flows.filter((f) => ![200, 400, 503].includes(f.signUp!.status));
    expect(unclean.map((f) => `${f.signUp!.status} ${f.signUp!.text.slice(0, 200)}`)).toEqual([]);
    for (const f of flows.filter((f) => f.signUp!.status === 400)) {
      expect(f.signUp!.body.data.inviteCode?.code, f.signUp!.text).toBe(
        'validation_invalid_invite_code',
      );
    }
    for (const f of flows.filter((f) => f.signUp!.status === 503))
      expectCleanUnavailable(f.signUp!);
    const made = flows.filter((f) => f.signUp!.status === 200);
    expect(made.length).toBeGreaterThan(0);
    // One winner per code at most, as the clients saw it.
    const winners = new Map<string, number>();
    for (const f of made) winners.set(f.code, (winners.get(f.code) ?? 0) + 1);
    expect([...winners.values()].filter((n) => n > 1)).toEqual([]);

    const stormEmails = flows.map((f) => f.email);
    const rows = await db(async (c) => {
      const users = await c.query<{
        id: string;
        email: string;
        invite_code: string;
        verification_sent_at: string | null;
      }>('SELECT id, email, invite_code, verification_sent_at FROM users WHERE email = ANY($1)', [
        stormEmails,
      ]);
      return users.rows;
    });
    const byEmail = new Map(rows.map((r) => [r.email, r]));
    // Every 200 is an account; every refusal is none; a 503 may be either (it was cut), but whole.
    for (const f of made) expect(byEmail.has(f.email), f.email).toBe(true);
    for (const f of flows.filter((f) => f.signUp!.status === 400))
      expect(byEmail.has(f.email), f.email).toBe(false);

    // The database checks out: each account consumed exactly one code, its own, and no code was
    // consumed twice; each has all its own codes and its sign-up event (nothing half-made).
    await db(async (c) => {
      const twice = await c.query(
        'SELECT invite_code FROM users GROUP BY invite_code HAVING count(*) > 1',
      );
      expect(twice.rows).toEqual([]);
      const consumed = await c.query<{
        email: string;
        used: number;
        owned: number;
        events: number;
      }>(
        `SELECT u.email,
                (SELECT count(*)::int FROM invite_codes c WHERE c.used_by = u.id) AS used,
                (SELECT count(*)::int FROM invite_codes c WHERE c.owner_id = u.id) AS owned,
                (SELECT count(*)::int FROM security_events e WHERE e.user_id = u.id AND e.type = 'sign_up') AS events
           FROM users u WHERE u.email = ANY($1)`,
        [stormEmails],
      );
      for (const r of consumed.rows)
        expect(r, r.email).toMatchObject({ used: 1, owned: INVITES_PER_USER, events: 1 });
      const poolUse = await c.query<{ used_by: string | null }>(
        `SELECT c.used_by FROM invite_codes c JOIN users o ON o.id = c.owner_id
          WHERE o.email = $1 AND c.used_by IS NOT NULL AND c.used_by NOT IN (SELECT id FROM users)`,
        [root.email],
      );
      // Codes of the initial account used by an account that does not exist: only the deleted member's.
      expect(poolUse.rows.length).toBeLessThanOrEqual(1);
      // PostgreSQL's own check of every B-tree index (amcheck, in Debian's postgresql package).
      await c.query('CREATE EXTENSION IF NOT EXISTS amcheck');
      const indexes = await c.query<{ name: string }>(
        `SELECT bt_index_check(i.indexrelid), c.relname AS name
           FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
          WHERE am.amname = 'btree' AND c.relnamespace = 'public'::regnamespace`,
      );
      expect(indexes.rows.length).toBeGreaterThan(5);
    });

    // No queued mail is lost: every account whose verification mail was queued (the throttle mark
    // commits with the mail) gets it, at least once, even if the killed instance was sending it
    // (its claim lapses after two minutes and another instance sends it).
    const queued = rows.filter((r) => r.verification_sent_at !== null);
    const answered204 = made.filter((f) => f.verification?.status === 204);
    expect(queued.length).toBeGreaterThan(answered204.length / 2);
    await Promise.all(queued.map((r) => mail.waitForMailTo(r.email, S.verify, 150_000)));
    // And the outbox empties: a sent mail leaves it just after the receiver has it, and one the
    // killed instance had claimed (perhaps already sent) goes out again once its claim lapses.
    const outbox = () =>
      db(async (c) => (await c.query('SELECT count(*)::int AS n FROM outbox')).rows[0].n);
    await waitUntil(async () => (await outbox()) === 0, 150_000, 'the outbox to empty');
    console.log(
      `storm: ${STORM} sign-ups for ${pool.length} codes; ${made.length} made, ` +
        `${flows.filter((f) => f.signUp!.status === 400).length} refused, ` +
        `${flows.filter((f) => f.signUp!.status === 503).length} unavailable; ` +
        `${rows.length} accounts, ${queued.length} verification mails queued and received ` +
        `(${answered204.length} requests answered 204)`,
    );
    // The restarted instance serves again.
    expect((await call(victim.url, 'GET', PATHS.codes, { token: root.token })).status).toBe(200);
  }, 300_000);
});
