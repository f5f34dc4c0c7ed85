import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeServer, pbError } from '../test/fake-server';
import {
  FIELD_CODES,
  fieldText,
  fieldTexts,
  MESSAGES,
  refusedFieldText,
  SERVER_MESSAGES,
  serverText,
} from './messages';
import { messages as german } from '../locales/de/errors.po';
import { pb } from './pb';

/** The server's source, read as text: what it can answer is enumerated from there. */
const serverSrc = join(import.meta.dirname, '../../../server/src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')
      ? [readFileSync(path, 'utf8')]
      : [];
  });
}

const server = sources(serverSrc);
const unquote = (text: string) => text.replace(/\\(['"])/g, '$1');

/** Every field error code in the server's source (`'validation_…'`). */
function serverCodes(): string[] {
  const codes = new Set<string>();
  for (const text of server) {
    for (const [code] of text.matchAll(/validation_[a-z_]+/g))
      if (!code.endsWith('_')) codes.add(code);
    // admin/record-filter.ts: `validation_invalid_${param}` for a list's filter or sort.
    if (text.includes('`validation_invalid_${param}`')) {
      expect(text).toContain("param: 'filter' | 'sort'");
      codes.add('validation_invalid_filter').add('validation_invalid_sort');
    }
  }
  return [...codes].sort();
}

/** Every whole-request message the server's errors carry, literal or through a constant. */
function serverMessages(): { messages: string[]; unread: string[] } {
  const constants = new Map<string, string>();
  for (const text of server) {
    for (const m of text.matchAll(/\bconst ([A-Z_]+)\s*=\s*(['"])((?:\\.|(?!\2).)*)\2/g))
      constants.set(m[1]!, unquote(m[3]!));
    // An object of messages (`BATCH_MESSAGES.readFailed`).
    for (const m of text.matchAll(/\bconst ([A-Z_]+) = \{([^}]*)\}/g))
      for (const entry of m[2]!.matchAll(/(\w+): (['"])((?:\\.|(?!\2).)*)\2/g))
        constants.set(`${m[1]}.${entry[1]}`, unquote(entry[3]!));
    for (const m of text.matchAll(/\bconst ([A-Z_]+)\s*=\s*`\$\{([A-Z_]+)\}\.`/g))
      constants.set(m[1]!, `${constants.get(m[2]!) ?? ''}.`);
  }
  const messages = new Set<string>();
  const unread: string[] = [];
  for (const text of server) {
    const thrown =
      /new (?:ValidationError|ForbiddenError|HttpError)\(\s*(?:\d+,\s*)?(?:(['"])((?:\\.|(?!\1).)*)\1|([A-Z_]+(?:\.\w+)?)\b)/g;
    for (const m of text.matchAll(thrown)) {
      if (m[2] !== undefined) messages.add(unquote(m[2]));
      else if (constants.has(m[3]!)) messages.add(constants.get(m[3]!)!);
      else unread.push(m[3]!);
    }
    // The errors' own messages (core/errors.ts) and PocketBase's defaults by status.
    if (text.includes('class ValidationError extends Error'))
      for (const m of text.matchAll(/super\((['"])((?:\\.|(?!\1).)*)\1/g))
        messages.add(unquote(m[2]!));
    const defaults = /DEFAULT_MESSAGES[^=]*=\s*\{([^}]*)\}/.exec(text);
    for (const m of defaults?.[1]!.matchAll(/\d+:\s*(['"])((?:\\.|(?!\1).)*)\1/g) ?? [])
      messages.add(unquote(m[2]!));
  }
  return { messages: [...messages].sort(), unread };
}

async function failureOf(status: number, message: string, data: Record<string, unknown> = {}) {
  fakeServer({ 'POST /api/try': () => pbError(status, message, data) });
  try {
    await pb.send('/api/try', { method: 'POST' });
  } catch (err) {
    return err;
  }
  throw new Error('The request did not fail');
}

describe('lib/messages', () => {
  afterEach(() => pb.authStore.clear());

  it('has a text for every field error code the server can send', () => {
    const codes = serverCodes();
    expect(codes.length).toBeGreaterThan(30);
    expect(codes.filter((code) => !(code in FIELD_CODES))).toEqual([]);
  });

  it('has a text for every message the server can answer a request with', () => {
    const { messages, unread } = serverMessages();
    expect(messages.length).toBeGreaterThan(50);
    expect(messages.filter((message) => !(message in SERVER_MESSAGES))).toEqual([]);
    expect(unread).toEqual([]);
  });

  it('speaks product language in English and German: no PocketBase wording, no shorthand people are not told', () => {
    for (const [id, descriptor] of Object.entries(MESSAGES)) {
      // The German catalogue's compiled form: its words, with the places' names between them.
      const texts = [descriptor.message ?? '', JSON.stringify(german[id] ?? '')];
      expect(texts[1], `${id} has no German`).not.toBe('""');
      for (const text of texts) {
        expect(text).not.toMatch(
          /\b(auth record|token|MFA|OTP|2FA|superuser|collection|record)\b/i,
        );
        expect(text).not.toMatch(/\blog ?in\b/i);
      }
    }
    // Every id the code tables name exists: every server error code and message a screen can
    // receive (the tests above enumerate them from the server's source) has both texts.
    for (const rule of [...Object.values(FIELD_CODES), ...Object.values(SERVER_MESSAGES)]) {
      for (const id of typeof rule === 'object' ? Object.values(rule) : [rule]) {
        expect(MESSAGES).toHaveProperty([id]);
        expect(german[id], `${id} has no German`).toBeTruthy();
      }
    }
  });

  it('says an address is taken instead of "Value must be unique."', async () => {
    const err = await failureOf(400, 'Failed to create record.', {
      email: { code: 'validation_not_unique', message: 'Value must be unique.' },
    });
    expect(fieldText(err, 'email')).toBe('This email address is already in use.');
    expect(serverText(err)).toBe("The account couldn't be created. Please check the fields below.");
  });

  it('never shows "Missing or invalid auth record password."', async () => {
    const err = await failureOf(400, 'An error occurred while validating the submitted data.', {
      password: {
        code: 'validation_invalid_password',
        message: 'Missing or invalid auth record password.',
      },
    });
    expect(fieldTexts(err)).toEqual({ password: "That password isn't right." });
    expect(serverText(err)).toBe('Please check the fields below.');
  });

  it('fills the limits of a rule in, and reads without them when the server gave none', () => {
    expect(
      refusedFieldText('password', {
        code: 'validation_length_out_of_range',
        message: 'The length must be between 8 and 72.',
        params: { min: 8, max: 72 },
      }),
    ).toBe('Use between 8 and 72 characters.');
    expect(
      refusedFieldText('name', {
        code: 'validation_min_greater_equal_than_required',
        message: 'x',
      }),
    ).toBe('x');
    expect(
      refusedFieldText('smtp', {
        code: 'validation_locked_by_env',
        message: "Set by SMTP_HOST in the server's environment: change it there.",
      }),
    ).toBe("Set by SMTP_HOST in the server's environment: change it there.");
  });

  it('keeps the server’s words for a message it has no entry for', async () => {
    const err = await failureOf(400, 'Something new.');
    expect(serverText(err)).toBe('Something new.');
  });
});
