import { describe, expect, it } from 'vitest';
import {
  formatInviteCode,
  inviteLink,
  newInviteCode,
  normalizeInviteCode,
} from '../../src/invites/codes.js';

describe('invite codes', () => {
  it('are 20 characters of Crockford base32, different every time', () => {
    const codes = new Set(Array.from({ length: 1000 }, newInviteCode));
    expect(codes.size).toBe(1000);
    for (const code of codes) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{20}$/);
  });

  it.each([
    ['abcd-efgh-jkmn-pqrs-tvwx', 'ABCDEFGHJKMNPQRSTVWX'],
    ['  ABCD EFGH\tJKMN-PQRS--TVWX ', 'ABCDEFGHJKMNPQRSTVWX'],
    // Read aloud or typed by hand: I and L are 1, O is 0.
    ['il0o-ILOO', '1100110000'.slice(0, 8)],
    ['---', ''],
    ['', ''],
  ])('normalise %j to %j', (typed, stored) => {
    expect(normalizeInviteCode(typed)).toBe(stored);
  });

  it('are shown in groups of four', () => {
    expect(formatInviteCode('ABCDEFGHJKMNPQRSTVWX')).toBe('ABCD-EFGH-JKMN-PQRS-TVWX');
    expect(formatInviteCode('ABCDEF')).toBe('ABCD-EF');
  });

  it('links to sign-up with the formatted code, whatever form it was given in', () => {
    expect(inviteLink('https://gh.example', 'abcdefghjkmnpqrstvwx')).toBe(
      'https://gh.example/signup?code=ABCD-EFGH-JKMN-PQRS-TVWX',
    );
  });
});
