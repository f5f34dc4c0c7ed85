import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { BAD_LIST_QUERY, matches, readFilter } from '../../src/admin/record-filter.js';
import { USER_FIELDS } from '../../src/admin/record-list.js';
import { MSG, PATHS } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';

/**
 * The record list's filter parser under fire. Thousands of random and garbled filters go to the
 * parser and checker directly (and some over HTTP): each is read or refused with the filter's 400,
 * never anything else. Random well-typed filters, written out as text with random spacing,
 * parentheses, quotes and comments, select exactly the members that this file's own evaluation of
 * the same tree selects, in the order it sorts them: over the API on both databases, against a
 * small set of members with awkward values (wildcards, quotes, backslashes, case, emoji, ties).
 */

/** mulberry32: a small seeded PRNG, so a failure can be replayed with the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let r = Math.imul(a ^ (a >>> 15), 1 | a);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const GARBLED = Number(process.env.FUZZ_ROUNDS ?? 4000);
const TREES = 1500;
const OVER_HTTP = 150;

type Rnd = {
  next: () => number;
  int: (n: number) => number;
  pick: <T>(xs: readonly T[]) => T;
  chance: (p: number) => boolean;
};
function rng(seed: number): Rnd {
  const next = prng(seed);
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick: (xs) => xs[int(xs.length)]!,
    chance: (p) => next() < p,
  };
}

// --------------------------------------------------------------------------- garbled input

const PIECES = [
  '(',
  ')',
  '((',
  '))',
  '&&',
  '||',
  '&',
  '|',
  '&&&',
  '=',
  '!=',
  '~',
  '!~',
  '<',
  '<=',
  '>',
  '>=',
  '?=',
  '?!~',
  '?',
  '!',
  '==',
  '=<',
  'email',
  'verified',
  'created',
  'name',
  'inviteCode',
  'id',
  'password',
  'tokenKey',
  '@now',
  '@todayStart',
  '@request.auth.id',
  '@collection.users.email',
  'true',
  'NULL',
  'False',
  '"',
  "'",
  '"abc"',
  "'x'",
  '"a\\"b"',
  "'%'",
  '"_"',
  '"\\\\"',
  '12',
  '-',
  '-1.5',
  '1.',
  '.5',
  '1.2.3',
  '1e9',
  '//',
  '/',
  '// note\n',
  '\n',
  ' ',
  '\t',
  '\r',
  'é',
  '😀',
  '\\',
  '%',
  '_',
  'geoDistance(',
  'lower(',
  ',',
  '#',
  '@',
  'a.b',
  'a:',
  'a.',
  ':',
  '\u2028',
  '\ud800',
  '99999999999999999999999999999999999999999999999999999999999999999999999',
];

function garbled(r: Rnd): string {
  switch (r.int(6)) {
    case 0:
      return Array.from({ length: r.int(30) }, () => r.pick(PIECES)).join(r.pick(['', ' ']));
    case 1:
      return Array.from({ length: r.int(40) }, () =>
        String.fromCodePoint(r.chance(0.8) ? 32 + r.int(95) : r.int(0x2ffff)),
      ).join('');
    case 2:
      return '('.repeat(r.int(80)) + 'verified = true' + ')'.repeat(r.int(80));
    case 3:
      return Array.from({ length: 150 + r.int(150) }, () => 'email ~ "a"').join(' && ');
    case 4:
      return 'x'.repeat(3400 + r.int(200));
    default: {
      // A valid filter, then a few characters changed, added or removed.
      const chars = [...print(r, tree(r, 3))];
      for (let i = r.int(4) + 1; i > 0; i--) {
        const at = r.int(chars.length + 1);
        const op = r.int(3);
        if (op === 0) chars.splice(at, 1);
        else if (op === 1) chars.splice(at, 0, r.pick(PIECES));
        else chars[at] = r.pick(PIECES);
      }
      return chars.join('');
    }
  }
}

// --------------------------------------------------------------------------- random trees

type Field = { name: string; type: 'text' | 'bool' };
const TEXT_FIELDS: Field[] = USER_FIELDS.filter((f) => f.type === 'text');
const BOOL_FIELDS: Field[] = USER_FIELDS.filter((f) => f.type === 'bool');

type Lit =
  { k: 'text'; v: string } | { k: 'number'; v: number } | { k: 'bool'; v: boolean } | { k: 'null' };
type Side = { k: 'field'; f: Field } | Lit;
type Tree =
  | { k: 'and' | 'or'; items: Tree[] }
  | { k: 'cmp'; op: string; any: boolean; left: Side; right: Side };

const ORDER_OPS = ['=', '!=', '<', '<=', '>', '>='];

/** Values the members hold, pieces of them, and awkward ones. */
let textPool: string[] = [
  '',
  'a',
  'A',
  'ada',
  'ADA',
  '%',
  '_',
  '%a%',
  'a_a',
  '\\',
  '\\%',
  'é',
  '😀',
];

function textValue(r: Rnd): string {
  let v = r.pick(textPool);
  if (v.length > 1 && r.chance(0.5)) {
    const chars = [...v];
    const start = r.int(chars.length);
    v = chars.slice(start, start + 1 + r.int(chars.length - start)).join('');
  }
  if (r.chance(0.3)) v = r.chance(0.5) ? v.toUpperCase() : v.toLowerCase();
  if (r.chance(0.1)) v = `${r.pick(['%', '_', ''])}${v}${r.pick(['%', '_', ''])}`;
  // What a quoted text cannot hold: a `\` right before a quote, or at its end.
  return v.replace(/\\+(?=['"])/g, '').replace(/\\+$/, '');
}

function literal(r: Rnd, type: 'text' | 'bool' | 'number'): Lit {
  if (type === 'text') return r.chance(0.1) ? { k: 'null' } : { k: 'text', v: textValue(r) };
  if (type === 'number') return { k: 'number', v: r.pick([0, 1, -1, 2, 0.5, -3.25, 10]) };
  if (r.chance(0.15)) return { k: 'null' };
  if (r.chance(0.2)) return literal(r, 'number');
  return { k: 'bool', v: r.chance(0.5) };
}

function comparison(r: Rnd): Tree {
  const any = r.chance(0.1);
  switch (r.int(10)) {
    case 0: {
      // Two values, worked out by the server itself.
      const type = r.pick(['text', 'number', 'bool'] as const);
      const sides = [literal(r, type), literal(r, type)];
      // null against a number is refused (400): it has no empty value to stand for.
      if (sides.some((s) => s.k === 'null') && sides.some((s) => s.k === 'number')) {
        sides[sides.findIndex((s) => s.k === 'null')] = { k: 'bool', v: false };
      }
      return { k: 'cmp', op: r.pick(ORDER_OPS), any, left: sides[0]!, right: sides[1]! };
    }
    case 1:
    case 2: {
      const left: Side = r.chance(0.85)
        ? { k: 'field', f: r.pick(TEXT_FIELDS) }
        : { k: 'text', v: textValue(r) };
      return {
        k: 'cmp',
        op: r.pick(['~', '!~']),
        any,
        left,
        right: { k: 'text', v: textValue(r) },
      };
    }
    case 3: {
      const type = r.pick(['text', 'bool'] as const);
      const fields = type === 'text' ? TEXT_FIELDS : BOOL_FIELDS;
      return {
        k: 'cmp',
        op: r.pick(ORDER_OPS),
        any,
        left: { k: 'field', f: r.pick(fields) },
        right: { k: 'field', f: r.pick(fields) },
      };
    }
    default: {
      const field = r.pick(r.chance(0.6) ? TEXT_FIELDS : BOOL_FIELDS);
      const sides: [Side, Side] = [{ k: 'field', f: field }, literal(r, field.type)];
      if (r.chance(0.3)) sides.reverse();
      return { k: 'cmp', op: r.pick(ORDER_OPS), any, left: sides[0], right: sides[1] };
    }
  }
}

function tree(r: Rnd, depth: number): Tree {
  if (depth <= 0 || r.chance(0.35)) return comparison(r);
  return {
    k: r.chance(0.5) ? 'and' : 'or',
    items: Array.from({ length: 2 + r.int(3) }, () => tree(r, depth - 1)),
  };
}

function quote(r: Rnd, v: string): string {
  if (!v.includes('"') && (r.chance(0.5) || v.includes("'"))) return `"${v}"`;
  if (!v.includes("'")) return `'${v}'`;
  return `"${v.replaceAll('"', '\\"')}"`;
}

const space = (r: Rnd) => r.pick([' ', ' ', ' ', '  ', '\t', '\n', ' // why not\n']);

function printSide(r: Rnd, s: Side): string {
  switch (s.k) {
    case 'field':
      return s.f.name;
    case 'text':
      return quote(r, s.v);
    case 'number':
      return String(s.v);
    case 'bool':
      return r.pick([String(s.v), String(s.v).toUpperCase(), s.v ? 'True' : 'False']);
    case 'null':
      return r.pick(['null', 'NULL', 'Null']);
  }
}

/** The tree as filter text: random spacing and comments, parentheses where needed and more. */
function print(r: Rnd, t: Tree, parent?: 'and' | 'or'): string {
  if (t.k === 'cmp') {
    const text = `${printSide(r, t.left)}${space(r)}${t.any ? '?' : ''}${t.op}${space(r)}${printSide(r, t.right)}`;
    return r.chance(0.1) ? `(${text})` : text;
  }
  const joined = t.items
    .map((item) => print(r, item, t.k))
    .join(`${space(r)}${t.k === 'and' ? '&&' : '||'}${space(r)}`);
  // `||` inside `&&` needs them; anything else may have them.
  return (parent === 'and' && t.k === 'or') || r.chance(0.2) ? `(${space(r)}${joined})` : joined;
}

// --------------------------------------------------------------------------- the oracle

type Rec = Record<string, unknown>;

/** Compares by code points. */
function cmpText(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** PocketBase's wrapping of a `~` value (its Go code, read from the right). */
function pattern(v: string): string {
  let prev = '';
  let wild = false;
  for (const c of v) {
    if (c === '%' && prev !== '\\') wild = true;
    prev = c === '\\' && prev === '\\' ? '' : c;
  }
  if (wild) return v;
  // From the right: a `\`, `%` or `_` gets a `\` before it unless one is there; the character
  // before it is taken as it is (PocketBase does not look at it again).
  const cs = [...v];
  let out = '';
  let j = cs.length - 1;
  while (j >= 0) {
    const c = cs[j]!;
    if (!'\\%_'.includes(c)) {
      out = c + out;
      j -= 1;
    } else if (j === 0) {
      out = `\\${c}${out}`;
      j -= 1;
    } else {
      const before = cs[j - 1]!;
      out = (before === '\\' ? `\\${c}` : `${before}\\${c}`) + out;
      j -= 2;
    }
  }
  return `%${out}%`;
}

/** LIKE with ESCAPE '\', A–Z folded, by dynamic programming over code points. */
function like(text: string, pat: string): boolean {
  const t = [...fold(text)];
  const tokens: Array<{ any?: true; one?: true; ch?: string }> = [];
  const p = [...fold(pat)];
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\' && i + 1 < p.length) tokens.push({ ch: p[++i] });
    else if (p[i] === '%') tokens.push({ any: true });
    else if (p[i] === '_') tokens.push({ one: true });
    else tokens.push({ ch: p[i] });
  }
  let row = Array<boolean>(t.length + 1).fill(false);
  row[0] = true;
  for (const tok of tokens) {
    const nextRow = Array<boolean>(t.length + 1).fill(false);
    for (let j = 0; j <= t.length; j++) {
      if (tok.any) nextRow[j] = row[j]! || (j > 0 && nextRow[j - 1]!);
      else if (j > 0 && row[j - 1] && (tok.one || t[j - 1] === tok.ch)) nextRow[j] = true;
    }
    row = nextRow;
  }
  return row[t.length]!;
}

function value(s: Side, rec: Rec, as: 'text' | 'bool'): string | number {
  if (s.k === 'field') {
    return s.f.type === 'bool' ? (rec[s.f.name] ? 1 : 0) : String(rec[s.f.name]);
  }
  if (s.k === 'null') return as === 'text' ? '' : 0;
  if (s.k === 'bool') return s.v ? 1 : 0;
  return s.v;
}

function holds(op: string, order: number): boolean {
  return {
    '=': order === 0,
    '!=': order !== 0,
    '<': order < 0,
    '<=': order <= 0,
    '>': order > 0,
    '>=': order >= 0,
  }[op]!;
}

function evaluate(t: Tree, rec: Rec): boolean {
  if (t.k !== 'cmp') {
    return t.k === 'and'
      ? t.items.every((i) => evaluate(i, rec))
      : t.items.some((i) => evaluate(i, rec));
  }
  if (t.op === '~' || t.op === '!~') {
    const text = String(value(t.left, rec, 'text'));
    return like(text, pattern((t.right as { v: string }).v)) === (t.op === '~');
  }
  const isText = (s: Side) => s.k === 'text' || (s.k === 'field' && s.f.type === 'text');
  const as = isText(t.left) || isText(t.right) || (t.left.k === 'null' && t.right.k === 'null');
  const a = value(t.left, rec, as ? 'text' : 'bool');
  const b = value(t.right, rec, as ? 'text' : 'bool');
  return holds(t.op, as ? cmpText(String(a), String(b)) : Number(a) - Number(b));
}

// --------------------------------------------------------------------------- the checks

/** A filter read by the server's own parser: a condition, or the filter's 400, nothing else. */
function readOr400(text: string) {
  try {
    return readFilter(text, USER_FIELDS);
  } catch (error) {
    expect(error, JSON.stringify(text)).toBeInstanceOf(ValidationError);
    const e = error as ValidationError;
    expect(e.message).toBe(BAD_LIST_QUERY);
    expect(Object.keys(e.fields)).toEqual(['filter']);
    expect(e.fields.filter!.code).toBe('validation_invalid_filter');
    return null;
  }
}

/** Records to evaluate against when no server is at hand. */
const SAMPLE: Rec[] = [
  {
    id: 'aaaaaaaaaaaaaaa',
    email: 'ada@example.com',
    emailVisibility: true,
    verified: true,
    name: 'Ada',
    inviteCode: 'ABCD-EFGH',
    created: '2026-01-01 10:00:00.000Z',
    updated: '2026-01-02 10:00:00.000Z',
  },
  {
    id: 'bbbbbbbbbbbbbbb',
    email: 'a_b%c@example.org',
    emailVisibility: false,
    verified: false,
    name: '',
    inviteCode: 'WXYZ-1234',
    created: '2026-01-01 10:00:00.000Z',
    updated: '2026-01-01 10:00:00.000Z',
  },
  {
    id: 'ccccccccccccccc',
    email: 'zoe@x.test',
    emailVisibility: false,
    verified: true,
    name: 'Zoë \\ "Z" 100%',
    inviteCode: 'QQQQ-QQQQ',
    created: '2025-06-30 23:59:59.999Z',
    updated: '2026-11-25 00:00:00.000Z',
  },
];

describe(`the filter parser, directly (FUZZ_SEED=${SEED})`, () => {
  it(`${GARBLED} random and garbled filters: read, or refused with the filter's 400`, () => {
    const r = rng(SEED);
    let read = 0;
    for (let i = 0; i < GARBLED; i++) {
      const text = garbled(r);
      const started = performance.now();
      if (readOr400(text)) read += 1;
      expect(performance.now() - started, JSON.stringify(text)).toBeLessThan(200);
    }
    // Some of the mangled filters still read: the garbling is not all one kind of refusal.
    expect(read).toBeGreaterThan(GARBLED / 50);
  });

  it('a text compared with itself by ~ matches, whatever characters it holds', () => {
    for (let code = 32; code < 127; code++) {
      const c = String.fromCharCode(code);
      if (c === '"' || c === '\\') continue;
      expect(readFilter(`"x${c}y" ~ "x${c}y"`, USER_FIELDS), c).toEqual({
        kind: 'const',
        value: true,
      });
    }
  });

  it(`${TREES} random well-typed trees: each reads, and selects what the tree selects`, () => {
    const r = rng(SEED + 1);
    textPool = [
      ...textPool,
      ...SAMPLE.flatMap((s) => Object.values(s).filter((v) => typeof v === 'string')),
    ] as string[];
    for (let i = 0; i < TREES; i++) {
      const t = tree(r, 3);
      const text = print(r, t);
      const condition = readFilter(text, USER_FIELDS);
      for (const rec of SAMPLE) {
        const expected = evaluate(t, rec);
        expect(condition ? matches(condition, rec) : true, `${text} on ${rec.id}`).toBe(expected);
      }
    }
  });
});

describe.each(DATABASES)(`random filters over HTTP on %s (FUZZ_SEED=${SEED})`, (db) => {
  let t: TestServer;
  let operator: User;
  let records: Rec[];

  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
    const emails = [
      'ada.lovelace@example.com',
      'a_b%c@example.org',
      "o'neil@example.net",
      'zoe+tag@x.test',
      'upper.case@example.com',
      'alan.turing@example.com',
      'grace@hopper.test',
      'ken@example.org',
      '100%sure@example.com',
      'under_score@example.com',
    ];
    const ids: string[] = [];
    for (const email of emails) ids.push((await t.unverifiedUser(email)).id);
    const names = [
      'Ada King',
      '',
      'ÉCOLE',
      'zoë',
      '100%',
      'under_score',
      'back\\slash',
      'quote"d',
      "it's",
      '😀 emoji',
    ];
    // Awkward values straight into the rows (the API would not set them all): names, flags,
    // and dates with ties, so that ordering falls back to the id.
    await withDatabase(t, async (d) => {
      for (const [i, id] of ids.entries()) {
        const created = `2026-0${1 + (i % 3)}-15 12:00:00.000Z`;
        await d
          .updateTable('users')
          .set({
            name: names[i]!,
            verified: i % 3 === 0 ? 1 : 0,
            email_visibility: i % 4 === 0 ? 1 : 0,
            created,
            updated: i % 2 ? created : '2026-11-25 08:00:00.000Z',
          })
          .where('id', '=', id)
          .execute();
      }
    });
    const all = await t.get(`${PATHS.records}?perPage=1000&skipTotal=1`, operator.token);
    expect(all.status).toBe(200);
    records = all.body.items as Rec[];
    expect(records).toHaveLength(emails.length + 1);
    textPool = [
      ...new Set([
        ...textPool,
        ...records.flatMap((rec) => Object.values(rec).filter((v) => typeof v === 'string')),
      ]),
    ] as string[];
  });
  afterAll(() => t?.close());

  /** The oracle's order: the sort's terms, then the id, as the list makes it total. */
  function ordered(recs: Rec[], sort: Array<[Field, 'asc' | 'desc']>): Rec[] {
    const terms =
      sort.length === 0
        ? ([
            [USER_FIELDS[6]!, 'asc'],
            [USER_FIELDS[0]!, 'asc'],
          ] as Array<[Field, 'asc' | 'desc']>)
        : sort.some(([f]) => f.name === 'id' || f.name === 'email')
          ? sort
          : [...sort, [USER_FIELDS[0]!, sort.at(-1)![1]] as [Field, 'asc' | 'desc']];
    return [...recs].sort((a, b) => {
      for (const [f, dir] of terms) {
        const o =
          f.type === 'bool'
            ? Number(a[f.name]) - Number(b[f.name])
            : cmpText(String(a[f.name]), String(b[f.name]));
        if (o !== 0) return dir === 'asc' ? o : -o;
      }
      return 0;
    });
  }

  it(`${OVER_HTTP} random filters and sorts: exactly the members the tree selects, in order`, async () => {
    const r = rng(SEED + (db === 'postgres' ? 3 : 2));
    for (let i = 0; i < OVER_HTTP; i++) {
      const t2 = tree(r, 3);
      const text = print(r, t2);
      const sort: Array<[Field, 'asc' | 'desc']> = r.chance(0.5)
        ? Array.from({ length: 1 + r.int(2) }, () => [
            r.pick(USER_FIELDS),
            r.pick(['asc', 'desc'] as const),
          ])
        : [];
      const sortText = sort
        .map(([f, d]) => `${d === 'desc' ? '-' : r.pick(['', '+'])}${f.name}`)
        .join(',');
      const res = await t.get(
        `${PATHS.records}?perPage=1000&filter=${encodeURIComponent(text)}${sortText ? `&sort=${encodeURIComponent(sortText)}` : ''}`,
        operator.token,
      );
      const where = `filter ${JSON.stringify(text)} sort ${sortText}: ${res.status} ${res.text.slice(0, 300)}`;
      expect(res.status, where).toBe(200);
      const expected = ordered(
        records.filter((rec) => evaluate(t2, rec)),
        sort,
      ).map((rec) => rec.id);
      expect(
        (res.body.items as Rec[]).map((rec) => rec.id),
        where,
      ).toEqual(expected);
      expect(res.body.totalItems, where).toBe(expected.length);
    }
  });

  it('garbled filters over HTTP: 200 or the filter’s 400, never a 5xx', async () => {
    const r = rng(SEED + 7);
    for (let i = 0; i < 200; i++) {
      const text = garbled(r).replaceAll('\u0000', '');
      const res = await t.get(
        `${PATHS.records}?filter=${encodeURIComponent(text.replace(/[\ud800-\udfff]/g, '\ufffd'))}`,
        operator.token,
      );
      const where = `${JSON.stringify(text)} → ${res.status} ${res.text.slice(0, 300)}`;
      expect([200, 400], where).toContain(res.status);
      if (res.status === 400) {
        expect(res.body.message, where).toBe(MSG[400]);
        expect(Object.keys(res.body.data), where).toEqual(['filter']);
      }
    }
  });
});
