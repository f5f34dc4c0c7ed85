import { vi } from 'vitest';
import type { MeAnswer } from '../../../contract/admin';
import { AUTH_STORAGE_KEY, type UserRecord } from '../lib/session';

/**
 * A stand-in for the Gatehouse server at the HTTP boundary: `fetch` is stubbed, so the real SDK and
 * the app's real fetchers run. Routes are "METHOD /path" → handler; anything else is a 404 in the
 * server's error envelope.
 */
export interface FakeRequest {
  method: string;
  path: string;
  /** The query string's parameters. */
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}
export type Handler = (req: FakeRequest) => Response | Promise<Response>;

export function json(status: number, body: unknown): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

export function noContent(): Response {
  return new Response(null, { status: 204 });
}

/** The server's error envelope: {"data":{...},"message":"...","status":N}. */
export function pbError(status: number, message: string, data: Record<string, unknown> = {}) {
  return json(status, { data, message, status });
}

export function fieldErrors(fields: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(fields).map(([field, message]) => [field, { code: 'validation_x', message }]),
  );
}

export type FakeServer = ReturnType<typeof fakeServer>;

export function fakeServer(routes: Record<string, Handler>) {
  const requests: FakeRequest[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      'http://localhost',
    );
    const method = (init?.method ?? 'GET').toUpperCase();
    let body: unknown = undefined;
    if (typeof init?.body === 'string') {
      try {
        body = JSON.parse(init.body);
      } catch {
        body = init.body;
      }
    } else if (init?.body instanceof FormData) {
      // A multipart form (a file attached): handed over as the FormData the app sent.
      body = init.body;
    }
    const req: FakeRequest = {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: new Headers(init?.headers),
      body,
    };
    requests.push(req);
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler) return pbError(404, "The requested resource wasn't found.");
    return handler(req);
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    requests,
    to(method: string, path: string) {
      return requests.filter((r) => r.method === method && r.path === path);
    },
  };
}

/** A JWT-shaped token the SDK accepts as unexpired (it only decodes the payload). */
/** A mailed link's token as the server makes it (`verification` or `passwordReset`), unsigned. */
export function makeLinkToken(
  type: 'verification' | 'passwordReset' | 'emailChange',
  {
    email = 'alice@example.com',
    secondsLeft = 1800,
    id = 'u1',
    newEmail,
  }: { email?: string; secondsLeft?: number; id?: string; newEmail?: string } = {},
): string {
  const payload = btoa(
    JSON.stringify({
      id,
      type,
      email,
      collectionId: '_pb_users_auth_',
      exp: Math.floor(Date.now() / 1000) + secondsLeft,
      ...(newEmail ? { newEmail } : {}),
    }),
  ).replace(/=+$/, '');
  return `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${payload}.signature`;
}

export function makeToken(id: string, secondsLeft = 3600): string {
  const payload = btoa(
    JSON.stringify({
      id,
      type: 'auth',
      collectionId: '_pb_users_auth_',
      refreshable: true,
      exp: Math.floor(Date.now() / 1000) + secondsLeft,
    }),
  );
  return `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${payload}.signature`;
}

export function makeUser(overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    id: 'abc123def456ghi',
    collectionId: '_pb_users_auth_',
    collectionName: 'users',
    email: 'alice@example.com',
    emailVisibility: false,
    verified: true,
    name: '',
    avatar: '',
    language: 'en',
    isInitialUser: false,
    inviteCode: 'K7M2-QX9R-T4WD-8HNP-B3VZ',
    created: '2026-08-14 07:16:55.123Z',
    updated: '2026-08-14 07:16:55.123Z',
    ...overrides,
  };
}

/** Puts a session in the SDK's storage, as a previous visit would have. */
export function storeSession(user: UserRecord, token = makeToken(user.id)): string {
  window.localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ token, record: user }));
  return token;
}

export function authRefreshOk(user: UserRecord): Handler {
  return () => json(200, { token: makeToken(user.id), record: user });
}

/**
 * `user` signed in on a previous visit: the session stored, its refresh and the changelog answered,
 * and `routes` beside them (they win). With `operator`, GET /api/gatehouse/me says `user` is an
 * operator (and the initial user when `user` is).
 */
export function signedInServer(
  user: UserRecord,
  routes: Record<string, Handler> = {},
  { operator = false }: { operator?: boolean } = {},
) {
  storeSession(user);
  return fakeServer({
    'POST /api/collections/users/auth-refresh': authRefreshOk(user),
    'GET /changelog.json': changelogOk(),
    ...(operator ? { 'GET /api/gatehouse/me': meOk(user, true) } : {}),
    ...routes,
  });
}

/** GET /api/gatehouse/me for `user`: operator or not, initial user as the record says. */
export function meOk(user: UserRecord, isOperator: boolean): Handler {
  const answer: MeAnswer = {
    id: user.id,
    email: user.email,
    isInitialUser: user.isInitialUser,
    isOperator,
  };
  return () => json(200, answer);
}

export const sampleChangelog = [
  {
    version: '1.2.0',
    date: '2026-11-20',
    title: 'Faster invites',
    summary: 'Invite links are quicker to share.',
    features: ['One-tap copy of invite links'],
    improvements: ['Smaller download'],
    fixes: ['The banner no longer flickers'],
  },
  {
    version: '1.1.0',
    date: '2026-10-01',
    title: 'Password reset',
    summary: 'Reset a forgotten password by email.',
    features: [],
    improvements: [],
    fixes: [],
  },
];

export function changelogOk(entries: unknown = sampleChangelog): Handler {
  return () => json(200, entries);
}

/** GET /api/settings as the server answers it: SMTP_URL set in the server's environment. */
export function settingsAnswer(
  over: {
    meta?: object;
    smtp?: object;
    backups?: object;
    batch?: object;
    lockedByEnv?: string[];
  } = {},
) {
  return {
    smtp: {
      enabled: true,
      port: 587,
      host: 'smtp.example.com',
      username: 'gate',
      authMethod: '',
      tls: false,
      localName: '',
      ...over.smtp,
    },
    backups: { cron: '', cronMaxKeep: 3, ...over.backups },
    batch: { enabled: false, maxRequests: 50, timeout: 3, maxBodySize: 0, ...over.batch },
    meta: {
      appName: 'Gatehouse',
      appURL: 'https://gate.example.com',
      senderName: 'Gatehouse',
      senderAddress: 'no-reply@gate.example.com',
      ...over.meta,
    },
    logs: { maxDays: 5 },
    gatehouse: { invitesPerMember: 5, sessionMaxDays: 30, auditRetentionDays: 90 },
    lockedByEnv: over.lockedByEnv ?? [
      'smtp.enabled',
      'smtp.host',
      'smtp.port',
      'smtp.username',
      'smtp.password',
      'smtp.authMethod',
      'smtp.tls',
      'smtp.localName',
    ],
  };
}
