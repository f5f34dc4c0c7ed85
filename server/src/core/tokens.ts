import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Config, ConfigError } from '../config.js';
import type { User } from '../db/schema.js';
import { hasValidSignature, parseJwt, signJwt } from '../tools/jwt.js';
import { ensurePrivateDir, restrictFile, writePrivateFileOnce } from '../tools/private-files.js';
import { newSecret } from '../tools/random.js';

/**
 * PocketBase-style tokens: HS256 JWTs signed with the user's own tokenKey plus a per-purpose
 * server secret. Rotating the tokenKey (password reset) or deleting the user kills every
 * outstanding token; a token of one type never verifies as another because the secrets differ.
 * The server secrets are never in the database, so a copy of it cannot sign tokens
 * (docs/decisions/0014-signing-secret-outside-the-database.md).
 */

export type TokenType = 'auth' | 'verification' | 'passwordReset' | 'emailChange' | 'file';

export const USERS_COLLECTION_ID = '_pb_users_auth_';
export const USERS_COLLECTION_NAME = 'users';

export const TOKEN_LIFETIME_SECONDS: Record<TokenType, number> = {
  auth: 5 * 24 * 60 * 60,
  verification: 24 * 60 * 60,
  passwordReset: 30 * 60,
  emailChange: 30 * 60,
  // PocketBase's file token: long enough to load a page's images, short as a link in a URL.
  file: 3 * 60,
};

export interface TokenClaims {
  id: string;
  type: TokenType;
  collectionId: string;
  exp: number;
  email?: string;
  refreshable?: boolean;
  /** Auth and file tokens: the session the token belongs to. */
  sid?: string;
  /** Email-change tokens: the address the account moves to. */
  newEmail?: string;
}

/** What a token carries beyond its type and user. */
export interface TokenExtras {
  /** Auth and file tokens: the session. */
  sid?: string;
  /** Email-change tokens: the new address. */
  newEmail?: string;
  /** Unix seconds; the token expires then if that is before the end of its usual lifetime. */
  notAfter?: number;
  /**
   * Auth tokens: false for one that auth-refresh does not renew (an operator viewing as a member,
   * PocketBase's static token). Default true.
   */
  refreshable?: boolean;
}

/**
 * The per-purpose secrets derived from the signing secret. The secret box's key is derived from
 * exactly these (core/secret-box.ts), so this set never grows: a newer type's secret is derived
 * from one of them (Tokens.fileSecret), and sealed data stays readable.
 */
export type TokenSecrets = Record<Exclude<TokenType, 'file'>, string>;

const SECRET_TYPES = ['auth', 'verification', 'passwordReset', 'emailChange'] as const;
const TYPES: TokenType[] = [...SECRET_TYPES, 'file'];

/** The tokens that carry the account's email and die when it changes (mailed links). */
export const EMAIL_BOUND: readonly TokenType[] = ['verification', 'passwordReset', 'emailChange'];

/** The signing-secret file inside DATA_DIR (SQLite without TOKEN_SECRET). */
export const SECRET_FILE = 'secret.key';

/** How far a token's `exp` may lie beyond its type's lifetime (clocks of several instances). */
export const MAX_CLOCK_SKEW_SECONDS = 5;

/**
 * The signing secret: TOKEN_SECRET when set; otherwise, on SQLite, DATA_DIR/secret.key (made at
 * first start, 0600). Several instances on PostgreSQL must share one, and nothing they share may
 * hold it (the database is what must not be enough to sign): TOKEN_SECRET is then required.
 */
export function loadSigningSecret(
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'tokenSecret'>,
): string {
  if (config.tokenSecret) return config.tokenSecret;
  if (config.databaseUrl) {
    throw new ConfigError([
      'TOKEN_SECRET must be set with DATABASE_URL: every instance signs and checks tokens with it, ' +
        'so give all of them the same value (at least 32 characters, e.g. `openssl rand -base64 48`)',
    ]);
  }
  ensurePrivateDir(config.dataDir);
  const file = path.join(config.dataDir, SECRET_FILE);
  // Two servers starting together on one directory: the first one's file wins, both read it.
  writePrivateFileOnce(file, `${newSecret()}\n`);
  restrictFile(file);
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32) {
    throw new ConfigError([`${file} must hold a secret of at least 32 characters`]);
  }
  return secret;
}

/** The per-purpose secrets, derived from the signing secret. */
export function tokenSecrets(signingSecret: string): TokenSecrets {
  const secrets = {} as TokenSecrets;
  for (const type of SECRET_TYPES) {
    secrets[type] = createHmac('sha256', signingSecret)
      .update(`gatehouse:${type}`)
      .digest('base64url');
  }
  return secrets;
}

/** How many tokens to remember, decoded and verified (bounded: cleared when full). */
const MAX_REMEMBERED = 10_000;
const MAX_REMEMBERED_LENGTH = 1024;
const decoded = new Map<string, TokenClaims>();

export class Tokens {
  private readonly verified = new Map<string, string>();
  /** File tokens' secret, derived from the auth secret (TokenSecrets says why not listed there). */
  private readonly fileSecret: string;

  constructor(private readonly secrets: TokenSecrets) {
    this.fileSecret = createHmac('sha256', secrets.auth)
      .update('gatehouse:file')
      .digest('base64url');
  }

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
    if (type === 'auth') claims.refreshable = extras.refreshable ?? true;
    // File tokens travel in image URLs: they name the session, never the email.
    if ((type === 'auth' || type === 'file') && extras.sid) claims.sid = extras.sid;
    if (EMAIL_BOUND.includes(type)) claims.email = user.email;
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

  /**
   * True when `token` is a live token of `type` for this user (signature, expiry no later than
   * the type's lifetime from now, collection).
   */
  verify(token: string, type: TokenType, user: Pick<User, 'token_key'>): boolean {
    const claims = Tokens.decode(token);
    if (!claims || claims.type !== type || claims.collectionId !== USERS_COLLECTION_ID) {
      return false;
    }
    const now = Math.floor(Date.now() / 1000);
    if (claims.exp <= now) return false;
    // We never sign for longer than the type's lifetime: a later `exp` is not one of ours.
    if (claims.exp > now + TOKEN_LIFETIME_SECONDS[type] + MAX_CLOCK_SKEW_SECONDS) return false;
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
    return tokenKey + (type === 'file' ? this.fileSecret : this.secrets[type]);
  }
}
