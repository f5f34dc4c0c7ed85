import * as OTPAuth from 'otpauth';
import { expect } from 'vitest';
import { PATHS } from './contract.js';
import type { TestServer } from './server.js';

/** The code an authenticator app shows for `secret`, `steps` 30-second steps from now. */
export function totpCode(secret: string, steps = 0): string {
  const totp = new OTPAuth.TOTP({
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

/** A signed-in, verified member with two-step sign-in on (the enabling code is spent). */
export interface TwoStepMember {
  email: string;
  password: string;
  id: string;
  token: string;
  secret: string;
  recoveryCodes: string[];
}

export async function twoStepMember(t: TestServer): Promise<TwoStepMember> {
  const u = await t.verifiedUser();
  const setup = await t.post(PATHS.totpSetup, {}, u.token);
  expect(setup.status, setup.text).toBe(200);
  const secret = setup.body.secret as string;
  const enable = await t.post(PATHS.totpEnable, { code: totpCode(secret) }, u.token);
  expect(enable.status, enable.text).toBe(200);
  return { ...u, secret, recoveryCodes: enable.body.recoveryCodes as string[] };
}

/** A right password for a two-step member: the mfaId of the 401. */
export async function mfaIdFor(t: TestServer, m: { email: string; password: string }) {
  const res = await t.login(m.email, m.password);
  expect(res.status, res.text).toBe(401);
  return res.body.mfaId as string;
}
