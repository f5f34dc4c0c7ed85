import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../support/contract.js';
import type { ApiResponse } from '../support/http.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';

/** encodeURIComponent that survives lone surrogates (they become U+FFFD). */
const enc = (s: string) =>
  encodeURIComponent(
    s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );

/** mulberry32: a small seeded PRNG, so a failure can be replayed with the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.FUZZ_SEED ?? 20260814);
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 300);

describe.each(DATABASES)(`randomized bad input on %s (FUZZ_SEED=${SEED})`, (db) => {
  let t: TestServer;
  let user: User;
  let unverified: User;
  let operator: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
    user = await t.verifiedUser();
    unverified = await t.unverifiedUser();
  });
  afterAll(() => t?.close());

  it(`${ROUNDS} random requests: never a 5xx, always a well-formed envelope`, async () => {
    const rnd = prng(SEED + (db === 'postgres' ? 1 : 0));
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const int = (n: number) => Math.floor(rnd() * n);
    const verificationToken = await t.verificationToken(unverified.email);

    const strings = (): string => {
      switch (int(12)) {
        case 0:
          return '';
        case 1:
          return 'x'.repeat(int(2) ? 300 : 100_000);
        case 2:
          return '😀'.repeat(int(200));
        case 3:
          return 'Ünïcödé-ñame@exämple.com';
        case 4:
          return user.email.toUpperCase();
        case 5:
          return "'; DROP TABLE users; --";
        case 6:
          return '\u0000\u0001\u001f\u2028\ud800';
        case 7:
          return user.token;
        case 8:
          return verificationToken;
        case 9:
          return 'a@b';
        case 10:
          return `${'a'.repeat(300)}@example.com`;
        default:
          return `${int(1e9)}`;
      }
    };
    const value = (depth = 0): unknown => {
      switch (int(depth > 1 ? 6 : 9)) {
        case 0:
          return null;
        case 1:
          return int(2) === 0;
        case 2:
          return pick([0, -1, 1e308, 3.5, Number.MAX_SAFE_INTEGER]);
        case 3:
        case 4:
        case 5:
          return strings();
        case 6:
          return Array.from({ length: int(4) }, () => value(depth + 1));
        case 7:
          return Object.fromEntries(
            Array.from({ length: int(4) }, () => [strings().slice(0, 20), value(depth + 1)]),
          );
        default:
          return { $gt: '' };
      }
    };
    const FIELDS = [
      'email',
      'password',
      'passwordConfirm',
      'inviteCode',
      'identity',
      'token',
      'verified',
      'emailVisibility',
      'isInitialUser',
      'id',
      'oldPassword',
      'newEmail',
      'code',
      'mfaId',
      'name',
      'response',
      '__proto__',
      'constructor',
      'count',
    ];
    const body = (): { raw?: string; body?: unknown } => {
      switch (int(8)) {
        case 0:
          return {};
        case 1:
          return {
            raw: pick([
              '{',
              '{"a":',
              'null',
              '[]',
              '""',
              '1',
              'true',
              '{"email":"a@b.c"}}',
              '\u00ff\u00fe',
            ]),
          };
        case 2:
          return { body: value() };
        default: {
          const o: Record<string, unknown> = {};
          for (let i = int(6); i > 0; i--) o[pick(FIELDS)] = value();
          if (int(3) === 0)
            return { raw: JSON.stringify(o).replace('{', '{"__proto__":{"admin":true},') };
          return { body: o };
        }
      }
    };
    const PATHS_ = [
      PATHS.login,
      PATHS.records,
      PATHS.requestVerification,
      PATHS.confirmVerification,
      PATHS.requestReset,
      PATHS.confirmReset,
      PATHS.refresh,
      PATHS.codes,
      PATHS.generate,
      PATHS.health,
      PATHS.requestEmailChange,
      PATHS.confirmEmailChange,
      PATHS.sessions,
      PATHS.logout,
      PATHS.exportData,
      PATHS.securityEvents,
      PATHS.totp,
      PATHS.totpSetup,
      PATHS.totpEnable,
      PATHS.totpDisable,
      PATHS.recoveryCodes,
      PATHS.authWithTotp,
      PATHS.passkeys,
      PATHS.passkeyOptions,
      PATHS.passkeyLoginOptions,
      PATHS.authWithPasskey,
      () => `${PATHS.passkeys}/${enc(strings().slice(0, 40)) || 'x'}`,
      '/api/gatehouse/me',
      '/api/admin/members',
      '/api/admin/invite-tree',
      '/api/admin/outbox',
      '/api/admin/test-mail',
      '/api/admin/security-events',
      '/api/metrics',
      () =>
        `/api/admin/members?q=${enc(strings().slice(0, 60))}&status=${enc(strings().slice(0, 20))}&sort=${pick(['email', '-created', enc(strings().slice(0, 10))])}&perPage=${int(1e6)}&page=${enc(strings().slice(0, 10))}`,
      () => `/api/admin/members/${enc(strings().slice(0, 40)) || 'x'}`,
      () =>
        `/api/admin/members/${pick([user.id, unverified.id, enc(strings().slice(0, 20)) || 'x'])}/${pick(['disable', 'enable', 'operator', 'invites', 'resend-verification'])}`,
      () => `/api/admin/invite-codes/${enc(strings().slice(0, 40)) || 'x'}`,
      () =>
        `/api/admin/invite-tree?root=${enc(strings().slice(0, 40))}&depth=${enc(strings().slice(0, 5))}`,
      () => `/api/admin/outbox/${enc(strings().slice(0, 40)) || 'x'}/retry`,
      () =>
        `/api/admin/security-events?member=${enc(strings().slice(0, 40))}&type=${enc(strings().slice(0, 40))}&perPage=${int(1e6)}`,
      () => `${PATHS.securityEvents}?page=${enc(strings().slice(0, 30))}&perPage=${int(1e6)}`,
      () => `${PATHS.sessions}/${enc(strings().slice(0, 40)) || 'x'}`,
      () => PATHS.record(user.id),
      () => `${PATHS.records}/${enc(strings().slice(0, 50)) || 'x'}`,
      () => `/api/${enc(strings().slice(0, 40))}`,
      () =>
        `${PATHS.records}?filter=${encodeURIComponent("email='x' || 1=1")}&perPage=-1&sort=-@random`,
      () => `/api/collections/users/records/%00`,
      () => `/api/collections/users/records/${'..%2F'.repeat(5)}etc%2Fpasswd`,
      () => `/api/health?${'a=1&'.repeat(200)}`,
      () => '/api//collections//users/records',
      () => '/API/HEALTH',
    ] as const;
    const METHODS = ['GET', 'POST', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
    const HEADERS = (): Record<string, string> => {
      const h: Record<string, string> = {};
      switch (int(7)) {
        case 0:
          h['Authorization'] = user.token;
          break;
        case 4:
          h['Authorization'] = operator.token;
          break;
        case 1:
          h['Authorization'] =
            `Bearer ${pick([user.token.slice(0, -3), 'x', '', verificationToken])}`;
          break;
        case 2:
          h['Authorization'] = 'x'.repeat(int(2) ? 50 : 6000);
          break;
        case 3:
          h['Authorization'] =
            `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"id":"x","type":"auth"}').toString('base64url')}.`;
          break;
        default:
          break;
      }
      switch (int(6)) {
        case 0:
          h['Content-Type'] = 'text/plain';
          break;
        case 1:
          h['Content-Type'] = 'application/x-www-form-urlencoded';
          break;
        case 2:
          h['Content-Type'] = 'multipart/form-data; boundary=zzz';
          break;
        case 3:
          h['Content-Type'] = 'application/json; charset=latin1';
          break;
        default:
          break;
      }
      if (int(5) === 0) h['X-Forwarded-For'] = pick(['1.2.3.4', 'garbage', '::1, 10.0.0.1', '']);
      if (int(8) === 0) h['Accept-Language'] = 'xx'.repeat(100);
      return h;
    };

    const failures: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const method = pick(METHODS);
      const p = pick(PATHS_);
      const path = typeof p === 'function' ? p() : p;
      const b = method === 'GET' || method === 'HEAD' ? {} : body();
      const headers = HEADERS();
      let res: ApiResponse;
      try {
        res = await t.request(method, path, { headers, ...b });
      } catch (err) {
        // node:http refuses some header/path values client-side; those never reach the server.
        if (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_')) continue;
        throw err;
      }
      const desc = `#${i} ${method} ${path.slice(0, 120)} ${JSON.stringify(b).slice(0, 200)} → ${res.status} ${res.text.slice(0, 200)}`;
      if (res.status >= 500) failures.push(desc);
      else if (res.status >= 400 && method !== 'HEAD' && path.toLowerCase().startsWith('/api')) {
        const e = res.body;
        const ok =
          e &&
          typeof e === 'object' &&
          // A 401 to a token that once held a session may say why it ended (docs/api.md).
          (Object.keys(e).sort().join() === 'data,message,status' ||
            (res.status === 401 &&
              Object.keys(e).sort().join() === 'data,message,reason,status' &&
              ['signed-out', 'password-changed', 'disabled', 'expired'].includes(e.reason))) &&
          e.status === res.status &&
          typeof e.data === 'object' &&
          /^[A-Z].*[.?!]$/s.test(e.message);
        if (!ok) failures.push(`bad envelope: ${desc}`);
        if (/at \w+ \(|SQLITE_|syntax error|relation "|node_modules/.test(res.text)) {
          failures.push(`leaks internals: ${desc}`);
        }
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
    expect((await t.get(PATHS.health)).status).toBe(200);
  }, 120_000);
});
