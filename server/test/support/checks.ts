import { expect } from 'vitest';
import { DATE_RE, ID_RE, RECORD_KEYS } from './contract.js';
import { jwtHeader, jwtPayload, type ApiResponse, type Json } from './http.js';

/** A user record as docs/api.md shapes it; `withEmail` false means the `email` key is absent. */
export function expectRecord(record: Json, expected: Json = {}, withEmail = true): void {
  const keys = withEmail ? RECORD_KEYS : RECORD_KEYS.filter((k) => k !== 'email');
  expect(Object.keys(record).sort()).toEqual(keys);
  expect(record.id).toMatch(ID_RE);
  expect(record.collectionId).toEqual(expect.any(String));
  expect(record.collectionId).not.toBe('');
  expect(record.collectionName).toBe('users');
  expect(record.created).toMatch(DATE_RE);
  expect(record.updated).toMatch(DATE_RE);
  expect(typeof record.verified).toBe('boolean');
  expect(typeof record.emailVisibility).toBe('boolean');
  expect(typeof record.isInitialUser).toBe('boolean');
  expect(typeof record.inviteCode).toBe('string');
  expect(record).toMatchObject(expected);
}

/** `{token, record}` of auth-with-password and auth-refresh. */
export function expectAuthResponse(res: ApiResponse, email: string): void {
  expect(res.status, res.text).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['record', 'token']);
  expectRecord(res.body.record, { email });
  expectToken(res.body.token, 'auth', res.body.record);
  expect(res.headers['cache-control'] ?? '').toMatch(/no-store/);
}

/** JWT shape: HS256, the payload keys of its type (auth tokens name their session), lifetime, ASCII payload. */
export function expectToken(
  token: string,
  type: 'auth' | 'verification' | 'passwordReset',
  record: { id: string; collectionId: string; email?: string },
  ttl?: number,
): void {
  expect(token.split('.')).toHaveLength(3);
  expect(jwtHeader(token)).toMatchObject({ alg: 'HS256' });
  const rawPayload = Buffer.from(token.split('.')[1]!, 'base64url').toString('latin1');
  expect(rawPayload).toMatch(/^[\x20-\x7e]*$/);
  const p = jwtPayload(token);
  const keys =
    type === 'auth'
      ? ['collectionId', 'exp', 'id', 'refreshable', 'sid', 'type']
      : ['collectionId', 'email', 'exp', 'id', 'type'];
  expect(Object.keys(p).sort()).toEqual(keys);
  expect(p.type).toBe(type);
  expect(p.id).toBe(record.id);
  expect(p.collectionId).toBe(record.collectionId);
  expect(Number.isInteger(p.exp)).toBe(true);
  if (type === 'auth') {
    expect(p.refreshable).toBe(true);
    // The server-side session the token belongs to.
    expect(p.sid).toMatch(ID_RE);
  } else if (record.email) expect(p.email).toBe(record.email);
  const expectedTtl = ttl ?? { auth: 432_000, verification: 86_400, passwordReset: 1_800 }[type];
  const now = Math.floor(Date.now() / 1000);
  expect(p.exp - now).toBeGreaterThan(expectedTtl - 120);
  expect(p.exp - now).toBeLessThanOrEqual(expectedTtl + 5);
}
