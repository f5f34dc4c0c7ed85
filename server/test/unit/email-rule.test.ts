import { describe, expect, it } from 'vitest';
import { isEmail as webIsEmail } from '../../../web/src/lib/email-rule.js';
import { isEmail as serverIsEmail } from '../../src/tools/email.js';

/**
 * One email rule for the web app and the server: both predicates run through one table, so a form
 * never lets through an address the server refuses (or the other way round).
 */
const at254 = `${'a'.repeat(242)}@example.com`;
const at255 = `${'a'.repeat(243)}@example.com`;

const table: Array<[string, boolean]> = [
  ['a@b.co', true],
  ['first.last+tag@sub.example.com', true],
  ['x@xn--80ak6aa92e.com', true],
  [at254, true],
  ['a@localhost', false],
  ['a@', false],
  ['@b.co', false],
  ['a b@c.de', false],
  ['a@-b.com', false],
  [at255, false],
  ['a@b..c', false],
  ['', false],
];

describe('the email rule', () => {
  it('has the lengths the table means', () => {
    expect(at254).toHaveLength(254);
    expect(at255).toHaveLength(255);
  });

  it.each(table)('%j: valid is %s, on the web and on the server', (email, valid) => {
    expect(webIsEmail(email)).toBe(valid);
    expect(serverIsEmail(email)).toBe(valid);
  });
});
