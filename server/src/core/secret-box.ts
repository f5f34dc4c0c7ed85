import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { TokenSecrets } from './tokens.js';

/**
 * Secrets the server must read back (the authenticator app's TOTP seed), sealed with AES-256-GCM
 * under a key derived with HKDF-SHA256 from the token secrets, so every instance derives the same
 * key. With TOKEN_SECRET set the key lives outside the database, and a stolen backup or dump does
 * not reveal the seeds; without it the secrets sit in the settings table, and the box keeps seeds
 * out of anything short of the whole database (a row in a log, an export, a query's output). Each
 * sealed value is bound to its owner (`context`, authenticated, not encrypted), so it cannot be
 * moved to another member's row (docs/decisions/0026-two-step-sign-in.md).
 *
 * Secrets the server only compares (recovery codes) are kept as a keyed digest instead, under a
 * second key derived the same way: a copy of the database cannot check a guess against them
 * without the secrets (docs/decisions/0048-keyed-recovery-codes-and-admitted-attempts.md).
 */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  private constructor(
    private readonly key: Buffer,
    private readonly digestKey: Buffer,
  ) {}

  /** The box keyed from the server's token secrets (every instance derives the same key). */
  static fromSecrets(secrets: TokenSecrets): SecretBox {
    const ikm = Object.keys(secrets)
      .sort()
      .map((type) => `${type}=${secrets[type as keyof TokenSecrets]}`)
      .join('\n');
    const key = hkdfSync('sha256', ikm, 'gatehouse', 'gatehouse secret-box v1', 32);
    const digestKey = hkdfSync('sha256', ikm, 'gatehouse', 'gatehouse keyed digest v1', 32);
    return new SecretBox(Buffer.from(key), Buffer.from(digestKey));
  }

  /**
   * HMAC-SHA256 of `value` for `purpose` (a digest of one purpose never matches another's),
   * base64url: the same on every instance, and not computable from the database alone.
   */
  digest(value: string, purpose: string): string {
    return createHmac('sha256', this.digestKey).update(`${purpose}\n${value}`).digest('base64url');
  }

  /** `v1.` + base64url(iv ‖ tag ‖ ciphertext). */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The plaintext, or undefined when the value was not sealed by this key for this context. */
  open(sealed: string, context: string): string | undefined {
    const [version, payload] = sealed.split('.');
    if (version !== VERSION || !payload) return undefined;
    const raw = Buffer.from(payload, 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const body = decipher.update(raw.subarray(IV_BYTES + TAG_BYTES));
      return Buffer.concat([body, decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
