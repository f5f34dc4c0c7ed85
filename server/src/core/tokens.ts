import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, User } from '../db/schema.js';
import { hasValidSignature, parseJwt, signJwt } from '../tools/jwt.js';
import { newSecret } from '../tools/random.js';

/**
 * PocketBase-style tokens: HS256 JWTs signed with the user's own tokenKey plus a per-purpose
 * server secret. Rotating the tokenKey (password reset) or deleting the user kills every
 * outstanding token; a token of one type never verifies as another because the secrets differ.
 */

export type TokenType = 'auth' | 'verification' | 'passwordReset' | 'emailChange';

export const USERS_COLLECTION_ID = '_pb_users_auth_';
export const USERS_COLLECTION_NAME = 'users';

export const TOKEN_LIFETIME_SECONDS: Record<TokenType, number> = {
  auth: 5 * 24 * 60 * 60,
  verification: 24 * 60 * 60,
  passwordReset: 30 * 60,
  emailChange: 30 * 60,
};

export interface TokenClaims {
  id: string;
  type: TokenType;
  collectionId: string;
  exp: number;
  email?: string;
  refreshable?: boolean;
  /** Auth tokens: the session the token belongs to. */
  sid?: string;
  /** Email-change tokens: the address the account moves to. */
  newEmail?: string;
}

/** What a token carries beyond its type and user. */
export interface TokenExtras {
  /** Auth tokens: the session. */
  sid?: string;
  /** Email-change tokens: the new address. */
  newEmail?: string;
  /** Unix seconds; the token expires then if that is before the end of its usual lifetime. */
  notAfter?: number;
}

export type TokenSecrets = Record<TokenType, string>;

const TYPES: TokenType[] = ['auth', 'verification', 'passwordReset', 'emailChange'];

/**
 * The per-purpose secrets: generated once and kept in the settings table, so every instance that
 * shares the database shares them. TOKEN_SECRET, when set, overrides them.
 */
export async function loadTokenSecrets(
  db: Kysely<Database>,
  override: string | undefined,
): Promise<TokenSecrets> {
  const secrets = {} as TokenSecrets;
  for (const type of TYPES) {
    if (override) {
      secrets[type] = createHmac('sha256', override)
        .update(`gatehouse:${type}`)
        .digest('base64url');
      continue;
    }
    const key = `token_secret.${type}`;
    // Insert-if-absent then read back: two instances starting together agree on one secret.
    await db
      .insertInto('settings')
      .values({ key, value: newSecret() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    secrets[type] = row.value;
  }
  return secrets;
}

/** How many tokens to remember, decoded and verified (bounded: cleared when full). */
const MAX_REMEMBERED = 10_000;
const MAX_REMEMBERED_LENGTH = 1024;
const decoded = new Map<string, TokenClaims>();

export class Tokens {
  private readonly verified = new Map<string, string>();

  constructor(private readonly secrets: TokenSecrets) {}

  sign(
    type: TokenType,
    user: Pick<User, 'id' | 'email' | 'token_key'>,
    extras: TokenExtras = {},
  ): string {
    const lifetimeEnd = Math.floor(Date.now() / 1000) + TOKEN_LIFETIME_SECONDS[type];
    const claims: TokenClaims = {
      collectionId: USERS_COLLECTION_ID,
      exp: Math.min(lifetimeEnd, extras.notAfter ?? lifetimeEnd),
      id: user.id,
      type,
    };
    if (type === 'auth') {
      claims.refreshable = true;
      if (extras.sid) claims.sid = extras.sid;
    } else claims.email = user.email;
    if (extras.newEmail) claims.newEmail = extras.newEmail;
    return signJwt(claims, this.key(type, user.token_key));
  }

  /**
   * Reads an HS256 token's claims without trusting them (to find whose key verifies it).
   * undefined: not a JWT of ours with the claims we need.
   */
  static decode(token: string): TokenClaims | undefined {
    // Decoding is a pure function of the text; the same session token arrives again and again.
    const known = decoded.get(token);
    if (known) return known;
    const claims = Tokens.decodeFresh(token);
    // Ours are ~250 characters; a client's oversized made-up token is not worth memory.
    if (claims && token.length <= MAX_REMEMBERED_LENGTH) {
      if (decoded.size >= MAX_REMEMBERED) decoded.clear();
      decoded.set(token, claims);
    }
    return claims;
  }

  private static decodeFresh(token: string): TokenClaims | undefined {
    const jwt = parseJwt(token);
    if (!jwt || jwt.header.alg !== 'HS256') return undefined;
    const { id, type, collectionId, exp } = jwt.claims;
    if (typeof id !== 'string' || typeof exp !== 'number' || typeof collectionId !== 'string') {
      return undefined;
    }
    if (!TYPES.includes(type as TokenType)) return undefined;
    return Object.freeze(jwt.claims) as unknown as TokenClaims;
  }

  /**
   * Whether the text is a JWT at all (three parts, JSON header and payload), valid or not. An
   * unsigned token (`alg: none`, empty signature) is a JWT: it is refused as invalid, not as
   * unreadable.
   */
  static isJwt(token: string): boolean {
    return parseJwt(token) !== undefined;
  }

  /** True when `token` is a live token of `type` for this user (signature, expiry, collection). */
  verify(token: string, type: TokenType, user: Pick<User, 'token_key'>): boolean {
    const claims = Tokens.decode(token);
    if (!claims || claims.type !== type || claims.collectionId !== USERS_COLLECTION_ID) {
      return false;
    }
    if (claims.exp <= Math.floor(Date.now() / 1000)) return false;
    // A signature is a pure function of the token's text, the user's key and the secret: once
    // checked it need not be computed again for as long as the user keeps that key.
    if (this.verified.get(token) === user.token_key) return true;
    const valid = hasValidSignature(token, this.key(type, user.token_key));
    if (valid) {
      if (this.verified.size >= MAX_REMEMBERED) this.verified.clear();
      this.verified.set(token, user.token_key);
    }
    return valid;
  }

  private key(type: TokenType, tokenKey: string): string {
    return tokenKey + this.secrets[type];
  }
}
