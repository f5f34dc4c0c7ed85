import { randomString } from '../tools/random.js';

/**
 * Invite codes: 20 characters of Crockford base32 (100 bits from the CSPRNG), shown in groups of
 * four. Crockford's alphabet has no I, L, O or U, so a code survives being read aloud or typed;
 * matching ignores case, spaces and dashes, and reads I/L as 1 and O as 0.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LENGTH = 20;

export function newInviteCode(): string {
  return randomString(LENGTH, CROCKFORD);
}

/** Canonical stored form of what a person typed or pasted; '' when nothing usable remains. */
export function normalizeInviteCode(input: string): string {
  return input
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/[IL]/g, '1')
    .replace(/O/g, '0');
}

/** XXXX-XXXX-XXXX-XXXX-XXXX, as shown to people and put in links. */
export function formatInviteCode(code: string): string {
  let out = code.slice(0, 4);
  for (let i = 4; i < code.length; i += 4) out += `-${code.slice(i, i + 4)}`;
  return out;
}

export function inviteLink(appUrl: string, code: string): string {
  return `${appUrl}/signup?code=${formatInviteCode(normalizeInviteCode(code))}`;
}
