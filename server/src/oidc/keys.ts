import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SecretBox } from '../core/secret-box.js';
import type { Database } from '../db/schema.js';
import { formatDate, nowString } from '../tools/time.js';

/**
 * The provider's signing keys (docs/decisions/0062): RSA keys made at the first start, kept in the
 * database as private JWKs sealed with the server's secret (core/secret-box.ts, bound to the kid),
 * so every instance signs with the same key and a copy of the database alone cannot sign.
 *
 * Rotation overlaps: a new key is published in the JWKS at once and signs from ACTIVATION_DELAY_MS
 * on (every instance reads the keys again within KEYS_REFRESH_MS, so none signs with a key another
 * does not publish yet); the keys it replaces stop signing then and stay published for
 * RETIRED_KEPT_MS more, the longest an ID token they signed lives.
 */

type Db = Kysely<Database>;

/** How often an instance reads the keys again. */
export const KEYS_REFRESH_MS = 60_000;
/** A new key signs this long after it was made (published meanwhile). */
export const ACTIVATION_DELAY_MS = 2 * KEYS_REFRESH_MS;
/** The ID tokens' lifetime (oidc/provider.ts). */
export const ID_TOKEN_TTL_SECONDS = 60 * 60;
/** A replaced key stays in the JWKS this long after it stopped signing. */
export const RETIRED_KEPT_MS = ID_TOKEN_TTL_SECONDS * 1000 + ACTIVATION_DELAY_MS;

export type PrivateJwk = Record<string, string>;

export interface KeySet {
  /** Private JWKs, the one that signs now first. */
  keys: PrivateJwk[];
  /** Changes whenever the set or the signing key changes: the provider is made again. */
  version: string;
}

function newKey(): PrivateJwk {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as PrivateJwk;
  return { ...jwk, kid: randomBytes(12).toString('base64url'), alg: 'RS256', use: 'sig' };
}

async function insertKey(db: Db, box: SecretBox, activeFrom: Date): Promise<string> {
  const jwk = newKey();
  await db
    .insertInto('oidc_keys')
    .values({
      kid: jwk.kid!,
      jwk: box.seal(JSON.stringify(jwk), `oidc-key:${jwk.kid}`),
      created: nowString(),
      active_from: formatDate(activeFrom),
      retired_at: null,
    })
    .execute();
  return jwk.kid!;
}

/** Makes the first key when there is none that signs (the first start). */
export async function ensureSigningKey(db: Db, box: SecretBox): Promise<void> {
  const current = await db
    .selectFrom('oidc_keys')
    .select('kid')
    .where('retired_at', 'is', null)
    .executeTakeFirst();
  if (!current) await insertKey(db, box, new Date());
}

/**
 * The keys to publish, the one that signs now first: the newest active key that is not retired
 * (or, while the first key of a rotation waits, the key it replaces). Keys this server cannot open
 * (sealed under another TOKEN_SECRET) are left out.
 */
export async function loadKeys(db: Db, box: SecretBox, now = Date.now()): Promise<KeySet> {
  const rows = await db
    .selectFrom('oidc_keys')
    .selectAll()
    .orderBy('active_from', 'desc')
    .orderBy('kid')
    .execute();
  const nowText = formatDate(new Date(now));
  const keptSince = formatDate(new Date(now - RETIRED_KEPT_MS));
  const published = rows.filter((r) => r.retired_at === null || r.retired_at > keptSince);
  const signing =
    published.find(
      (r) => r.active_from <= nowText && (r.retired_at === null || r.retired_at > nowText),
    ) ?? published.find((r) => r.active_from <= nowText);
  const ordered = signing ? [signing, ...published.filter((r) => r !== signing)] : published;
  const keys = ordered
    .map((r) => box.open(r.jwk, `oidc-key:${r.kid}`))
    .filter((text): text is string => text !== undefined)
    .map((text) => JSON.parse(text) as PrivateJwk);
  return { keys, version: keys.map((k) => k.kid).join(',') };
}

/**
 * `cli oidc rotate-keys`: a new key, published now and signing from ACTIVATION_DELAY_MS on; the
 * keys in use stop signing then and leave the JWKS RETIRED_KEPT_MS later. Returns the new kid.
 */
export async function rotateKeys(db: Db, box: SecretBox, now = Date.now()): Promise<string> {
  const activeFrom = new Date(now + ACTIVATION_DELAY_MS);
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('oidc_keys')
      .set({ retired_at: formatDate(activeFrom) })
      .where('retired_at', 'is', null)
      .execute();
    return insertKey(trx, box, activeFrom);
  });
}

/** Deletes keys that left the JWKS (housekeeping). */
export async function deleteRetiredKeys(db: Db, now = Date.now()): Promise<number> {
  const result = await db
    .deleteFrom('oidc_keys')
    .where('retired_at', '<=', formatDate(new Date(now - RETIRED_KEPT_MS)))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
