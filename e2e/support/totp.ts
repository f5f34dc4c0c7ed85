import { Secret, TOTP } from 'otpauth';

/**
 * The code an authenticator app shows for `secret` (RFC 6238: SHA-1, 6 digits, 30 s), `stepsAhead`
 * time steps from now. The server takes the step before and after, and each step's code once:
 * a sign-in right after turning two-step on uses the next step's code (`stepsAhead = 1`).
 */
export function totpCode(secret: string, stepsAhead = 0): string {
  const totp = new TOTP({
    secret: Secret.fromBase32(secret.replace(/\s+/g, '')),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  });
  return totp.generate({ timestamp: Date.now() + stepsAhead * 30_000 });
}
