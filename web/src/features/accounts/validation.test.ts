import { describe, expect, it } from 'vitest';
import { checkNewPassword, checkSignUp, passwordLength } from './validation';

/**
 * The password minimum as the server counts it (server/src/accounts/passwords.ts): characters of
 * the NFKC form, not UTF-16 units, so a password the server takes is not refused here and one it
 * refuses is not sent.
 */
describe('the password minimum', () => {
  const fourEmoji = '🦊🌲🏔🌊'; // 4 characters, 8 UTF-16 units
  const eightEmoji = '🦊🌲🏔🌊🦉🍄🌙🔥';

  it('counts characters, not UTF-16 units', () => {
    expect(fourEmoji).toHaveLength(8);
    expect(passwordLength(fourEmoji)).toBe(4);
    expect(passwordLength(eightEmoji)).toBe(8);
  });

  it('counts the NFKC form, as the server stores it', () => {
    // 8 code points as typed (4 letters, each with a combining accent), 4 once composed.
    expect(passwordLength('a\u0301e\u0301i\u0301o\u0301')).toBe(4);
    // 7 code points as typed ("ﬃ" is one), 9 once normalised ("ffi").
    expect(passwordLength('\ufb03Qz7-k9')).toBe(9);
  });

  it('refuses 4 emoji and takes 8 on every form that sets a password', () => {
    const same = (password: string) => ({ password, passwordConfirm: password });
    expect(checkNewPassword(same(fourEmoji))).toEqual({
      field: 'password',
      message: 'Password must be at least 8 characters',
    });
    expect(checkNewPassword(same(eightEmoji))).toBeNull();
    const signUp = { email: 'carol@example.com', inviteCode: 'ABCD-EFGH' };
    expect(checkSignUp({ ...signUp, ...same(fourEmoji) })?.field).toBe('password');
    expect(checkSignUp({ ...signUp, ...same(eightEmoji) })).toBeNull();
  });
});
