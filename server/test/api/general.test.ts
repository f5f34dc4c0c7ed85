import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { DATABASES, startTestServer, type TestServer } from '../support/server.js';
import { scenarios, type Scenario } from '../support/table.js';

const notFound = { message: MSG[404] };
const loadError = { message: MSG.load };

const POST_ENDPOINTS = [
  PATHS.login,
  PATHS.records,
  PATHS.requestVerification,
  PATHS.confirmVerification,
  PATHS.requestReset,
  PATHS.confirmReset,
];

const rows: Scenario[] = [
  {
    name: 'GET /api/health answers the healthy envelope',
    method: 'GET',
    path: PATHS.health,
    status: 200,
    json: { code: 200, message: 'API is healthy.', data: {} },
  },
  {
    name: 'HEAD /api/health answers 200 with no body',
    method: 'HEAD',
    path: PATHS.health,
    status: 200,
    empty: true,
  },
  {
    name: 'POST /api/health is a wrong method: 404',
    method: 'POST',
    path: PATHS.health,
    body: {},
    status: 404,
    error: notFound,
  },
  {
    name: 'unknown /api path: 404',
    method: 'GET',
    path: '/api/nope',
    status: 404,
    error: notFound,
  },
  {
    name: 'a NUL character in the query is unreadable input: 400, never a database error',
    method: 'GET',
    path: '/api/invite-codes?type=%00x',
    status: 400,
    error: { message: MSG.load },
  },
  {
    name: 'a NUL character in a body string is unreadable input: 400, nothing changes',
    method: 'POST',
    path: '/api/collections/users/records',
    body: {
      email: 'nul@example.com',
      password: 'Tidal-Lantern-2046',
      passwordConfirm: 'Tidal-Lantern-2046',
      inviteCode: 'ABCD\u0000',
    },
    status: 400,
    error: { message: MSG.load },
  },
  {
    name: 'unknown collection: 404',
    method: 'POST',
    path: '/api/collections/posts/records',
    body: {},
    status: 404,
    error: notFound,
  },
  {
    name: 'unknown /api path with query and deep segments: 404',
    method: 'GET',
    path: '/api/collections/users/records/abc/def?x=1',
    status: 404,
    error: notFound,
  },
  {
    name: 'superuser API of PocketBase does not exist here: 404',
    method: 'POST',
    path: '/api/collections/_superusers/auth-with-password',
    body: { identity: 'a@example.com', password: 'whatever-123' },
    status: 404,
    error: notFound,
  },
  {
    name: 'GET on auth-with-password (wrong method): 404',
    method: 'GET',
    path: PATHS.login,
    status: 404,
    error: notFound,
  },
  {
    name: 'PUT on records (wrong method): 404',
    method: 'PUT',
    path: PATHS.records,
    body: {},
    status: 404,
    error: notFound,
  },
  {
    name: 'PATCH a record (no update endpoint): 404',
    method: 'PATCH',
    path: PATHS.record('abcdefghijklmno'),
    body: { email: 'x@example.com' },
    status: 404,
    error: notFound,
  },
  {
    name: 'DELETE /api/invite-codes (wrong method): 404',
    method: 'DELETE',
    path: PATHS.codes,
    status: 404,
    error: notFound,
  },
  {
    name: 'GET /api/invite-codes/generate (wrong method): 404',
    method: 'GET',
    path: PATHS.generate,
    status: 404,
    error: notFound,
  },
  {
    name: 'GET confirm-verification (wrong method): 404',
    method: 'GET',
    path: PATHS.confirmVerification,
    status: 404,
    error: notFound,
  },
  ...POST_ENDPOINTS.map((p): Scenario => ({
    name: `malformed JSON to ${p}: 400 loading error`,
    method: 'POST',
    path: p,
    raw: '{"email": "a@example.com", ',
    status: 400,
    error: loadError,
  })),
  ...POST_ENDPOINTS.map((p): Scenario => ({
    name: `a JSON array body to ${p}: 400 loading error`,
    method: 'POST',
    path: p,
    body: [1, 2, 3],
    status: 400,
    error: loadError,
  })),
  {
    name: 'login with a number identity (wrong JSON type): 400 loading error',
    method: 'POST',
    path: PATHS.login,
    body: { identity: 123, password: 'whatever-123' },
    status: 400,
    error: loadError,
  },
  {
    name: 'login with an object password (wrong JSON type): 400 loading error',
    method: 'POST',
    path: PATHS.login,
    body: { identity: 'a@example.com', password: { x: 1 } },
    status: 400,
    error: loadError,
  },
  {
    name: 'sign-up with a number email (wrong JSON type): 400 loading error',
    method: 'POST',
    path: PATHS.records,
    body: {
      email: 5,
      password: 'x-strong-pass',
      passwordConfirm: 'x-strong-pass',
      inviteCode: 'A',
    },
    status: 400,
    error: loadError,
  },
  {
    name: 'sign-up with an array inviteCode (wrong JSON type): 400 loading error',
    method: 'POST',
    path: PATHS.records,
    body: {
      email: 'a@example.com',
      password: 'x-strong-pass',
      passwordConfirm: 'x-strong-pass',
      inviteCode: ['A'],
    },
    status: 400,
    error: loadError,
  },
  {
    name: 'request-verification with a boolean email: 400 loading error',
    method: 'POST',
    path: PATHS.requestVerification,
    body: { email: true },
    status: 400,
    error: loadError,
  },
  {
    name: 'confirm-verification with an object token: 400 loading error',
    method: 'POST',
    path: PATHS.confirmVerification,
    body: { token: { a: 1 } },
    status: 400,
    error: loadError,
  },
  {
    name: 'confirm-password-reset with an array password: 400 loading error',
    method: 'POST',
    path: PATHS.confirmReset,
    body: { token: 'x', password: ['a'], passwordConfirm: 'a' },
    status: 400,
    error: loadError,
  },
  {
    name: 'garbage Authorization header makes a guest, never a 400: invite codes → 401',
    method: 'GET',
    path: PATHS.codes,
    headers: { Authorization: 'Bearer not.a.jwt' },
    status: 401,
    error: { message: MSG.needsAuth },
  },
  {
    name: 'a percent-encoded /api path is the API: auth-refresh at /%61pi/… answers no-store',
    before: async (t) => ({ token: (await t.initialUser()).token }),
    method: 'POST',
    path: PATHS.refresh.replace('/api/', '/%61pi/'),
    headers: (v) => ({ Authorization: v.token! }),
    status: 200,
    after: async (_t, _v, res) => {
      expect(res.body.token).toEqual(expect.any(String));
      expect(res.headers['cache-control']).toBe('no-store');
    },
  },
  ...['/API/health', '//api/health', '/%61pi/nope'].map((path): Scenario => ({
    name: `${path} is no route but API-shaped: 404 envelope, no-store`,
    method: 'GET',
    path,
    status: 404,
    error: notFound,
    after: async (_t, _v, res) => expect(res.headers['cache-control']).toBe('no-store'),
  })),
  ...[
    ['GET', '/api/gatehouse/sessions/%ff'],
    ['DELETE', '/api/gatehouse/sessions/%ff'],
    ['DELETE', '/api/gatehouse/passkeys/ab%E0%A4%A'],
  ].map(([method, path]): Scenario => ({
    name: `${method} ${path}: a bad escape in an id is a 400 envelope, not the router's answer`,
    method: method!,
    path: path!,
    status: 400,
    error: loadError,
    notContains: ['%ff', '%E0', 'FST_'],
    after: async (_t, _v, res) => {
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-store');
    },
  })),
  ...[
    ['DELETE', PATHS.session('x'.repeat(5000))],
    ['GET', PATHS.record('x'.repeat(5000))],
  ].map(([method, path]): Scenario => ({
    name: `${method} ${path!.slice(0, 40)}… (an id of 5,000 characters): the 404 envelope, not a raw 414`,
    method: method!,
    path: path!,
    status: 404,
    error: notFound,
    notContains: ['xxxxxxxxxx', 'FST_'],
    after: async (_t, _v, res) => {
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-store');
    },
  })),
  {
    name: 'garbage Authorization does not break a public endpoint (health)',
    method: 'GET',
    path: PATHS.health,
    headers: { Authorization: 'garbage' },
    status: 200,
  },
];

describe.each(DATABASES)('general HTTP behaviour on %s', (db) => {
  let t: TestServer;
  const webDist = mkdtempSync(path.join(os.tmpdir(), 'gh-web-'));
  beforeAll(async () => {
    mkdirSync(path.join(webDist, 'assets'));
    writeFileSync(
      path.join(webDist, 'index.html'),
      '<!doctype html><html><head><title>Gatehouse</title></head><body>app-shell</body></html>',
    );
    writeFileSync(path.join(webDist, 'assets', 'index-Bx3k9Qz1.js'), 'console.log(1);');
    writeFileSync(
      path.join(webDist, 'changelog.json'),
      JSON.stringify([
        {
          version: '0.1.0',
          date: '2026-01-01',
          title: 'First',
          summary: 's',
          features: [],
          improvements: [],
          fixes: [],
        },
      ]),
    );
    t = await startTestServer({ db, env: { WEB_DIST: webDist } });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  scenarios(() => t, rows);

  it('hosts the web app: SPA fallback for non-/api GETs, strict CSP on HTML', async () => {
    for (const p of ['/', '/signup?code=ABC', '/whats-new']) {
      const res = await t.request('GET', p);
      expect(res.status, p).toBe(200);
      expect(res.headers['content-type'], p).toMatch(/text\/html/);
      expect(res.text, p).toContain('app-shell');
      expect(res.headers['content-security-policy'] ?? '', p).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
    const index = await t.request('GET', '/');
    expect(index.headers['cache-control'] ?? '').toMatch(/no-cache|max-age=0|must-revalidate/);
  });

  it('serves /changelog.json as JSON (revalidated) and hashed assets immutably', async () => {
    const log = await t.request('GET', '/changelog.json');
    expect(log.status).toBe(200);
    expect(log.headers['content-type']).toMatch(/application\/json/);
    expect(log.body[0].version).toBe('0.1.0');
    expect(log.headers['cache-control'] ?? '').toMatch(/no-cache|max-age=0|must-revalidate/);
    const asset = await t.request('GET', '/assets/index-Bx3k9Qz1.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control'] ?? '').toMatch(/immutable/);
  });

  it('an unknown /api GET is a JSON 404, not the SPA page', async () => {
    const res = await t.request('GET', '/api/whatever/else');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ data: {}, message: MSG[404], status: 404 });
  });

  it('a body over the size limit (64 KiB) is refused with the exact 413 envelope', async () => {
    const huge = JSON.stringify({
      identity: 'a@example.com',
      password: 'x'.repeat(40 * 1024 * 1024),
    });
    const res = await t.request('POST', PATHS.login, { raw: huge });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ data: {}, message: MSG[413], status: 413 });
    const justOver = JSON.stringify({ identity: 'a@example.com', password: 'x'.repeat(65 * 1024) });
    expect((await t.request('POST', PATHS.login, { raw: justOver })).status).toBe(413);
  });
});
