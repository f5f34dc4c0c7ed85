import { randomBytes } from 'node:crypto';
import { e2eEnv, type ServerName } from './env';
import { linkIn, VERIFY_SUBJECT, waitForMail } from './mail';
import { totpCode } from './totp';

/** Talks to the server directly, to set up people a screen needs (the journeys use the UI). */

export function uniqueEmail(who: string): string {
  return `${who}-${randomBytes(4).toString('hex')}@example.com`;
}

/** A password that is long enough and not on any common-password list. */
export function newPassword(): string {
  return `Gh-${randomBytes(9).toString('base64url')}-tide`;
}

async function call<T>(base: string, method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: token } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface Member {
  email: string;
  password: string;
  id: string;
}

/** Signs up with `code` and requests the verification mail; the account stays unverified. */
export async function signUpUnverified(base: string, code: string, who: string): Promise<Member> {
  const email = uniqueEmail(who);
  const password = newPassword();
  const record = await call<{ id: string }>(base, 'POST', '/api/collections/users/records', {
    email,
    password,
    passwordConfirm: password,
    inviteCode: code,
  });
  await call(base, 'POST', '/api/collections/users/request-verification', { email });
  return { email, password, id: record.id };
}

/** The token of the verification mail the member was sent. */
export async function verificationLink(base: string, email: string): Promise<string> {
  return linkIn(await waitForMail(email, VERIFY_SUBJECT), `${base}/verify-email?token=`);
}

export async function verify(base: string, email: string): Promise<void> {
  const token = new URL(await verificationLink(base, email)).searchParams.get('token');
  await call(base, 'POST', '/api/collections/users/confirm-verification', { token });
}

/** Signs up with `code`, confirms the mailed link: a member who can sign in. */
export async function signUpVerified(base: string, code: string, who: string): Promise<Member> {
  const member = await signUpUnverified(base, code, who);
  await verify(base, member.email);
  return member;
}

export interface AccountRecord {
  id: string;
  email: string;
  verified: boolean;
  created: string;
  isInitialUser: boolean;
}

async function authenticate(base: string, member: { email: string; password: string }) {
  return call<{ token: string; record: AccountRecord }>(
    base,
    'POST',
    '/api/collections/users/auth-with-password',
    { identity: member.email, password: member.password },
  );
}

export async function logIn(base: string, member: { email: string; password: string }) {
  return (await authenticate(base, member)).token;
}

/** The member's record as the server has it (id, created, ...). */
export async function accountRecord(base: string, member: { email: string; password: string }) {
  return (await authenticate(base, member)).record;
}

export async function inviteCodes(
  base: string,
  member: { email: string; password: string },
): Promise<string[]> {
  const token = await logIn(base, member);
  const list = await call<{ codes: { code: string }[] }>(
    base,
    'GET',
    '/api/invite-codes',
    undefined,
    token,
  );
  return list.codes.map((c) => c.code);
}

/** The initial user makes 5 more codes. */
export async function generateCodes(base: string, member: { email: string; password: string }) {
  const token = await logIn(base, member);
  await call(base, 'POST', '/api/invite-codes/generate', {}, token);
}

export interface ChangelogEntry {
  version: string;
  date: string;
  title: string;
  summary: string;
  features: string[];
  improvements: string[];
  fixes: string[];
}

export async function changelog(base: string): Promise<ChangelogEntry[]> {
  return call<ChangelogEntry[]>(base, 'GET', '/changelog.json');
}

/**
 * Hands out unused invite codes of `initial` (the initial user) one at a time, making 5 more when
 * they run out: each call gives a code no earlier call gave.
 */
export function inviteCodeSource(
  base: string,
  initial: { email: string; password: string },
): () => Promise<string> {
  const handedOut = new Set<string>();
  return async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const code = (await inviteCodes(base, initial)).find((c) => !handedOut.has(c));
      if (code) {
        handedOut.add(code);
        return code;
      }
      await generateCodes(base, initial);
    }
    throw new Error('No invite code left to hand out');
  };
}

/** Turns two-step sign-in on for `member` through the API; returns its seed and recovery codes. */
export async function turnOnTwoStep(
  base: string,
  member: { email: string; password: string },
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const token = await logIn(base, member);
  const { secret } = await call<{ secret: string }>(
    base,
    'POST',
    '/api/gatehouse/totp/setup',
    {},
    token,
  );
  const { recoveryCodes } = await call<{ recoveryCodes: string[] }>(
    base,
    'POST',
    '/api/gatehouse/totp/enable',
    { code: totpCode(secret) },
    token,
  );
  return { secret, recoveryCodes };
}

/**
 * A spec's own server (support/global-setup.ts), the initial user the global setup made on it, and
 * a source of that user's spare invite codes.
 */
export function serverWithInitial(name: ServerName) {
  const server = e2eEnv().servers[name];
  const initial = server.initial;
  if (!initial) throw new Error(`The global setup did not create the initial user on ${name}`);
  return { server, origin: server.url, initial, spareCode: inviteCodeSource(server.url, initial) };
}
