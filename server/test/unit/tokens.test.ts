import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOKEN_LIFETIME_SECONDS, Tokens, type TokenSecrets } from '../../src/core/tokens.js';
import { hasValidSignature, parseJwt, signJwt } from '../../src/tools/jwt.js';

const secrets: TokenSecrets = {
  auth: 'a'.repeat(43),
  verification: 'v'.repeat(43),
  passwordReset: 'r'.repeat(43),
  emailChange: 'e'.repeat(43),
};
const user = { id: 'abcdefghijklmno', email: 'zoë@example.com', token_key: 'k'.repeat(43) };

function payloadOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('latin1'));
}

afterEach(() => vi.useRealTimers());

describe('HS256 JWTs', () => {
  it('sign then parse gives back the claims, and only the right key verifies', () => {
    const token = signJwt({ id: 'x', n: 1 }, 'key-one');
    expect(parseJwt(token)).toEqual({
      header: { alg: 'HS256', typ: 'JWT' },
      claims: { id: 'x', n: 1 },
    });
    expect(hasValidSignature(token, 'key-one')).toBe(true);
    expect(hasValidSignature(token, 'key-two')).toBe(false);
  });

  it('keeps the payload plain ASCII: an email with é is \\u-escaped and reads back equal', () => {
    const token = signJwt({ email: 'zoë@example.com' }, 'k');
    const raw = Buffer.from(token.split('.')[1]!, 'base64url').toString('latin1');
    expect(raw).toMatch(/^[\x20-\x7e]+$/);
    expect(parseJwt(token)?.claims.email).toBe('zoë@example.com');
  });

  it.each([
    ['two parts', 'aGVhZA.Ym9keQ'],
    ['four parts', 'a.b.c.d'],
    ['an empty header', '.e30.sig'],
    ['a payload that is not JSON', `${Buffer.from('{}').toString('base64url')}.bm90IGpzb24.sig`],
    [
      'a payload that is an array',
      `${Buffer.from('{}').toString('base64url')}.${Buffer.from('[1]').toString('base64url')}.sig`,
    ],
  ])('%s is not a JWT', (_name, text) => {
    expect(parseJwt(text)).toBeUndefined();
  });

  it('an unsigned token (empty signature) parses, but never verifies', () => {
    const [h, p] = signJwt({ id: 'x' }, 'k').split('.');
    expect(parseJwt(`${h}.${p}.`)).toBeDefined();
    expect(hasValidSignature(`${h}.${p}.`, 'k')).toBe(false);
  });

  it('a changed payload breaks the signature', () => {
    const [h, , s] = signJwt({ id: 'x' }, 'k').split('.');
    const forged = `${h}.${Buffer.from('{"id":"y"}').toString('base64url')}.${s}`;
    expect(hasValidSignature(forged, 'k')).toBe(false);
  });
});

describe('account tokens', () => {
  const tokens = new Tokens(secrets);

  it('an auth token carries the claims the SDK reads, refreshable, and no email', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const claims = payloadOf(tokens.sign('auth', user));
    expect(claims).toEqual({
      collectionId: '_pb_users_auth_',
      exp: Date.parse('2026-01-01T00:00:00Z') / 1000 + TOKEN_LIFETIME_SECONDS.auth,
      id: user.id,
      type: 'auth',
      refreshable: true,
    });
  });

  it('verification and reset tokens carry the email and their own lifetime', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const now = Date.parse('2026-01-01T00:00:00Z') / 1000;
    const verification = payloadOf(tokens.sign('verification', user));
    const reset = payloadOf(tokens.sign('passwordReset', user));
    expect(verification).toMatchObject({ type: 'verification', exp: now + 86_400 });
    expect(reset).toMatchObject({ type: 'passwordReset', exp: now + 1_800 });
    expect(Tokens.decode(tokens.sign('verification', user))?.email).toBe('zoë@example.com');
  });

  it('verifies for its own type and user key only', () => {
    const token = tokens.sign('verification', user);
    expect(tokens.verify(token, 'verification', user)).toBe(true);
    expect(tokens.verify(token, 'passwordReset', user)).toBe(false);
    expect(tokens.verify(token, 'auth', user)).toBe(false);
    expect(tokens.verify(token, 'verification', { token_key: 'another-key' })).toBe(false);
  });

  it('a token signed with other server secrets does not verify', () => {
    const other = new Tokens({ ...secrets, auth: 'z'.repeat(43) });
    expect(tokens.verify(other.sign('auth', user), 'auth', user)).toBe(false);
  });

  it('expires at exp: valid one second before, refused at it', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const token = tokens.sign('passwordReset', user);
    vi.setSystemTime(Date.parse('2026-01-01T00:29:59Z'));
    expect(tokens.verify(token, 'passwordReset', user)).toBe(true);
    vi.setSystemTime(Date.parse('2026-01-01T00:30:00Z'));
    expect(tokens.verify(token, 'passwordReset', user)).toBe(false);
  });

  it('refuses a correctly signed token whose exp lies beyond its lifetime (now + 10 years)', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const now = Date.parse('2026-01-01T00:00:00Z') / 1000;
    const genuine = tokens.sign('auth', user);
    const key = user.token_key + secrets.auth;
    const claims = { ...payloadOf(genuine) };
    const forever = signJwt({ ...claims, exp: now + 10 * 365 * 24 * 60 * 60 }, key);
    expect(hasValidSignature(forever, key), 'signed correctly').toBe(true);
    expect(tokens.verify(forever, 'auth', user)).toBe(false);
    // A reset token may not borrow the auth lifetime either.
    const reset = payloadOf(tokens.sign('passwordReset', user));
    const long = signJwt(
      { ...reset, exp: now + TOKEN_LIFETIME_SECONDS.auth },
      user.token_key + secrets.passwordReset,
    );
    expect(tokens.verify(long, 'passwordReset', user)).toBe(false);
  });

  it('allows a few seconds of clock skew between instances beyond the lifetime', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const now = Date.parse('2026-01-01T00:00:00Z') / 1000;
    const key = user.token_key + secrets.auth;
    const claims = payloadOf(tokens.sign('auth', user));
    const ahead = signJwt({ ...claims, exp: now + TOKEN_LIFETIME_SECONDS.auth + 3 }, key);
    expect(tokens.verify(ahead, 'auth', user)).toBe(true);
  });

  it('decode refuses alg none, an unknown type and missing claims', () => {
    const [, p] = tokens.sign('auth', user).split('.');
    const none = Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url');
    expect(Tokens.decode(`${none}.${p}.`)).toBeUndefined();
    expect(Tokens.isJwt(`${none}.${p}.`)).toBe(true);
    expect(
      Tokens.decode(signJwt({ id: 'x', type: 'admin', collectionId: 'c', exp: 9e9 }, 'k')),
    ).toBeUndefined();
    expect(
      Tokens.decode(signJwt({ type: 'auth', collectionId: 'c', exp: 9e9 }, 'k')),
    ).toBeUndefined();
  });
});
