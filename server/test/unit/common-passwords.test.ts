import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isCommonPassword } from '../../src/accounts/passwords.js';

describe('the common-passwords list', () => {
  it('is read once and leaves none of its modules in memory', () => {
    const cache = createRequire(import.meta.url).cache;
    const zxcvbn = () => Object.keys(cache).filter((file) => file.includes('@zxcvbn-ts'));
    expect(zxcvbn()).toEqual([]);

    expect(isCommonPassword('Dragon')).toBe(true);
    expect(isCommonPassword('correct horse battery staple')).toBe(false);
    // The list's module and the decompressor it loads would keep the list three times over (its
    // words, their compressed form), beside the one string the check reads.
    expect(zxcvbn()).toEqual([]);
  });
});
