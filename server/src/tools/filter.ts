/**
 * PocketBase's list filter and sort, read as PocketBase reads them (its `fexpr` grammar and
 * `search.ParseSortFromString`), into a syntax tree. Nothing here knows fields or SQL: the caller
 * checks the tree's identifiers against its own allow-list and compiles it to parameters
 * (admin/record-filter.ts; docs/decisions/0052).
 *
 * The grammar, as PocketBase's scanner and parser have it:
 *
 *     filter     = or
 *     or         = and { "||" and }
 *     and        = term { "&&" term }              (`&&` binds tighter: SQL's AND before OR)
 *     term       = "(" or ")" | operand sign operand
 *     operand    = identifier | 'text' | "text" | number
 *     sign       = "=" | "!=" | "~" | "!~" | "<" | "<=" | ">" | ">=" | "?" followed by one of them
 *
 * Identifiers start with a letter, `@`, `_` or `#` and go on with letters, digits, `_`, `.` and
 * `:`; text is quoted with `'` or `"`, a quote inside escaped with `\`; numbers are `-`, digits and
 * one `.`; white space is space, tab and newline; `//` starts a comment up to the end of the line.
 * `@now`, `@todayStart` and PocketBase's other date macros are read here (as text or numbers);
 * `true`, `false` and `null` stay identifiers, as in PocketBase, where a field of that name wins.
 */

/** A filter or sort the parser cannot read, or one over the limits; its message says why. */
export class FilterSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterSyntaxError';
  }
}

/** The comparison signs; `?=` and the other any-of signs read as these (single-valued fields). */
export type SignOp = '=' | '!=' | '~' | '!~' | '<' | '<=' | '>' | '>=';

export type Operand =
  | { kind: 'identifier'; name: string }
  | { kind: 'text'; value: string }
  | { kind: 'number'; value: number };

export type FilterNode =
  | { kind: 'and' | 'or'; items: FilterNode[] }
  | { kind: 'compare'; op: SignOp; left: Operand; right: Operand };

export interface SortTerm {
  field: string;
  direction: 'asc' | 'desc';
}

/** PocketBase's limits: a filter's length, its comparisons, a sort's terms and a term's length. */
export const MAX_FILTER_LENGTH = 3500;
export const MAX_FILTER_EXPRESSIONS = 200;
export const MAX_SORT_TERMS = 8;
export const MAX_SORT_FIELD_LENGTH = 255;
/** Ours: parentheses nested deeper than this are refused (the tree is walked recursively). */
export const MAX_FILTER_DEPTH = 32;

const SIGNS: ReadonlySet<string> = new Set(['=', '!=', '~', '!~', '<', '<=', '>', '>=']);

type Token =
  | { type: 'identifier' | 'number' | 'text' | 'sign' | 'join'; text: string; at: number }
  | { type: 'open' | 'close' | 'end'; text: string; at: number };

const isLetter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isDigit = (c: string) => c >= '0' && c <= '9';
const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\n';
const isSignChar = (c: string) => '=?!<>~'.includes(c);
const isJoinChar = (c: string) => c === '&' || c === '|';
const isIdentifierStart = (c: string) => isLetter(c) || c === '@' || c === '_' || c === '#';
const isIdentifierPart = (c: string) =>
  isLetter(c) || isDigit(c) || c === '_' || c === '.' || c === ':';

/** Where a token starts, for messages: "at character 12" (counted from 1). */
const where = (at: number) => `at character ${at + 1}`;
const shown = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** The filter's tokens, white space and comments left out. */
function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const run = (test: (c: string) => boolean) => {
    const start = i;
    while (i < input.length && test(input[i]!)) i++;
    return input.slice(start, i);
  };
  while (i < input.length) {
    const c = input[i]!;
    const at = i;
    if (isSpace(c)) {
      i++;
    } else if (c === '/') {
      if (input[i + 1] !== '/') throw new FilterSyntaxError(`Invalid comment ${where(at)}.`);
      while (i < input.length && input[i] !== '\n') i++;
    } else if (c === '(') {
      tokens.push({ type: 'open', text: c, at });
      i++;
    } else if (c === ')') {
      tokens.push({ type: 'close', text: c, at });
      i++;
    } else if (isIdentifierStart(c)) {
      i++;
      const text = c + run(isIdentifierPart);
      if (input[i] === '(') {
        throw new FilterSyntaxError(`Functions such as ${shown(text)} are not supported.`);
      }
      const last = text[text.length - 1]!;
      if (last === '.' || last === ':' || (text.length === 1 && !isLetter(text))) {
        throw new FilterSyntaxError(`Invalid identifier ${shown(text)} ${where(at)}.`);
      }
      tokens.push({ type: 'identifier', text, at });
    } else if (c === '-' || isDigit(c)) {
      // As PocketBase scans numbers: a `-` only first, one `.` at most, no exponent.
      let text = c;
      let dot = false;
      i++;
      while (i < input.length) {
        const d = input[i]!;
        if (isDigit(d) || (d === '.' && !dot)) {
          dot ||= d === '.';
          text += d;
          i++;
        } else break;
      }
      if (text === '-' || text.endsWith('.') || !Number.isFinite(Number(text))) {
        throw new FilterSyntaxError(`Invalid number ${shown(text)} ${where(at)}.`);
      }
      tokens.push({ type: 'number', text, at });
    } else if (c === "'" || c === '"') {
      // The text ends at the first quote of its kind not right after a backslash; `\'` (or `\"`)
      // inside stands for the quote. Nothing else is an escape.
      let prev = '';
      let closed = false;
      i++;
      const start = i;
      while (i < input.length) {
        const d = input[i]!;
        i++;
        if (d === c && prev !== '\\') {
          closed = true;
          break;
        }
        prev = d;
      }
      if (!closed) throw new FilterSyntaxError(`Unclosed quoted text ${where(at)}.`);
      tokens.push({ type: 'text', text: input.slice(start, i - 1).replaceAll(`\\${c}`, c), at });
    } else if (isSignChar(c)) {
      const text = run(isSignChar);
      const sign = text.startsWith('?') ? text.slice(1) : text;
      if (!SIGNS.has(sign))
        throw new FilterSyntaxError(`Invalid operator ${shown(text)} ${where(at)}.`);
      tokens.push({ type: 'sign', text: sign, at });
    } else if (isJoinChar(c)) {
      const text = run(isJoinChar);
      if (text !== '&&' && text !== '||') {
        throw new FilterSyntaxError(`Invalid join ${shown(text)} ${where(at)}: use && or ||.`);
      }
      tokens.push({ type: 'join', text, at });
    } else {
      const ch = String.fromCodePoint(input.codePointAt(i)!);
      throw new FilterSyntaxError(`Unexpected character ${shown(ch)} ${where(at)}.`);
    }
  }
  tokens.push({ type: 'end', text: '', at: input.length });
  return tokens;
}

/** PocketBase's date macros: `@now` and the starts and ends of today, the month and the year. */
function macro(name: string, now: Date): Operand | undefined {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  const date = (ms: number): Operand => ({
    kind: 'text',
    value: new Date(ms).toISOString().replace('T', ' '),
  });
  const day = 86_400_000;
  switch (name) {
    case '@now':
      return date(now.getTime());
    case '@yesterday':
      return date(now.getTime() - day);
    case '@tomorrow':
      return date(now.getTime() + day);
    case '@todayStart':
      return date(Date.UTC(y, m, d));
    case '@todayEnd':
      return date(Date.UTC(y, m, d, 23, 59, 59, 999));
    case '@monthStart':
      return date(Date.UTC(y, m, 1));
    case '@monthEnd':
      return date(Date.UTC(y, m + 1, 0, 23, 59, 59, 999));
    case '@yearStart':
      return date(Date.UTC(y, 0, 1));
    case '@yearEnd':
      return date(Date.UTC(y, 11, 31, 23, 59, 59, 999));
    case '@second':
      return { kind: 'number', value: now.getUTCSeconds() };
    case '@minute':
      return { kind: 'number', value: now.getUTCMinutes() };
    case '@hour':
      return { kind: 'number', value: now.getUTCHours() };
    case '@day':
      return { kind: 'number', value: d };
    case '@month':
      return { kind: 'number', value: m + 1 };
    case '@weekday':
      return { kind: 'number', value: now.getUTCDay() };
    case '@year':
      return { kind: 'number', value: y };
    default:
      return undefined;
  }
}

/**
 * The filter's syntax tree. `undefined` for an empty filter (no filter, as PocketBase takes
 * `filter=`); a filter of only white space or comments is an error, as in PocketBase.
 * FilterSyntaxError for anything it cannot read.
 */
export function parseFilter(input: string, options: { now?: Date } = {}): FilterNode | undefined {
  if (input === '') return undefined;
  if (input.length > MAX_FILTER_LENGTH) {
    throw new FilterSyntaxError(
      `The filter is longer than ${MAX_FILTER_LENGTH.toLocaleString('en')} characters.`,
    );
  }
  const now = options.now ?? new Date();
  const tokens = tokenize(input);
  let pos = 0;
  let comparisons = 0;
  const peek = () => tokens[pos]!;
  const next = () => tokens[pos++]!;
  const found = (t: Token) => (t.type === 'end' ? 'the end' : shown(t.text));

  const operand = (what: string): Operand => {
    const t = next();
    if (t.type === 'identifier') return macro(t.text, now) ?? { kind: 'identifier', name: t.text };
    if (t.type === 'text') return { kind: 'text', value: t.text };
    if (t.type === 'number') return { kind: 'number', value: Number(t.text) };
    throw new FilterSyntaxError(
      `Expected ${what} (a field, a quoted text or a number) ${where(t.at)}, found ${found(t)}.`,
    );
  };

  const term = (depth: number): FilterNode => {
    if (peek().type === 'open') {
      const open = next();
      if (depth >= MAX_FILTER_DEPTH) {
        throw new FilterSyntaxError(
          `Parentheses are nested more than ${MAX_FILTER_DEPTH} deep ${where(open.at)}.`,
        );
      }
      if (peek().type === 'close') {
        throw new FilterSyntaxError(`Empty parentheses ${where(open.at)}.`);
      }
      const inner = or(depth + 1);
      const close = next();
      if (close.type !== 'close') {
        throw new FilterSyntaxError(
          `Expected && or || or ")" ${where(close.at)}, found ${found(close)} (for the "(" ${where(open.at)}).`,
        );
      }
      return inner;
    }
    const left = operand('an operand');
    const sign = next();
    if (sign.type !== 'sign') {
      throw new FilterSyntaxError(
        `Expected an operator (=, !=, ~, !~, <, <=, >, >=) ${where(sign.at)}, found ${found(sign)}.`,
      );
    }
    const right = operand('a right operand');
    comparisons += 1;
    if (comparisons > MAX_FILTER_EXPRESSIONS) {
      throw new FilterSyntaxError(
        `The filter has more than ${MAX_FILTER_EXPRESSIONS} comparisons.`,
      );
    }
    return { kind: 'compare', op: sign.text as SignOp, left, right };
  };

  /** `kind` items joined by `join`, flattened: (a && b) && c is one `and` of three. */
  const joined = (kind: 'and' | 'or', join: string, item: () => FilterNode): FilterNode => {
    const items: FilterNode[] = [];
    const add = (node: FilterNode) => {
      if (node.kind === kind) items.push(...node.items);
      else items.push(node);
    };
    add(item());
    while (peek().type === 'join' && peek().text === join) {
      next();
      add(item());
    }
    return items.length === 1 ? items[0]! : { kind, items };
  };
  const and = (depth: number) => joined('and', '&&', () => term(depth));
  const or = (depth: number): FilterNode => joined('or', '||', () => and(depth));

  if (peek().type === 'end') throw new FilterSyntaxError('The filter is empty.');
  const tree = or(0);
  const rest = peek();
  if (rest.type !== 'end') {
    throw new FilterSyntaxError(`Expected && or || ${where(rest.at)}, found ${found(rest)}.`);
  }
  return tree;
}

/**
 * A `sort` value as PocketBase reads it: fields separated by commas, each `-` (descending) or
 * `+`/nothing (ascending) first. Empty: no sort. The caller checks the field names.
 */
export function parseSort(input: string): SortTerm[] {
  if (input === '') return [];
  const terms = input.split(',').map((raw): SortTerm => {
    const text = raw.trim();
    if (text.startsWith('-')) return { field: text.slice(1), direction: 'desc' };
    return { field: text.startsWith('+') ? text.slice(1) : text, direction: 'asc' };
  });
  if (terms.length > MAX_SORT_TERMS) {
    throw new FilterSyntaxError(`Sort by at most ${MAX_SORT_TERMS} fields.`);
  }
  for (const term of terms) {
    if (term.field.length > MAX_SORT_FIELD_LENGTH) {
      throw new FilterSyntaxError(
        `A sort field is longer than ${MAX_SORT_FIELD_LENGTH} characters.`,
      );
    }
  }
  return terms;
}

/**
 * What `field ~ value` matches, as PocketBase builds it: a value with a `%` of its own is a LIKE
 * pattern as it is (`%` any text, `_` one character, `\` escapes); any other value is looked for
 * anywhere, its `\`, `%` and `_` escaped unless a `\` already escapes them. Used with
 * `ESCAPE '\'`. Never ends in a lone `\`, which PostgreSQL would refuse.
 */
export function likePattern(value: string): string {
  let pattern = hasUnescaped(value, '%') ? value : `%${escapeUnescaped(value)}%`;
  const trailing = /\\+$/.exec(pattern)?.[0].length ?? 0;
  if (trailing % 2 === 1) pattern += '\\';
  return pattern;
}

/** Whether `text` holds `ch` not right after a `\` (a `\\` pair escapes nothing after it). */
function hasUnescaped(text: string, ch: string): boolean {
  let prev = '';
  for (const c of text) {
    if (c === ch && prev !== '\\') return true;
    prev = c === '\\' && prev === '\\' ? '' : c;
  }
  return false;
}

/** PocketBase's escapeUnescapedChars for `\`, `%` and `_`: each gets a `\` unless it has one. */
function escapeUnescaped(text: string): string {
  const chars = [...text];
  const out: string[] = [];
  let pending = false;
  for (let i = chars.length - 1; i >= 0; i--) {
    const c = chars[i]!;
    if (pending) {
      if (c !== '\\') out.push('\\');
      pending = false;
    } else if (c === '\\' || c === '%' || c === '_') {
      pending = true;
    }
    out.push(c);
    if (i === 0 && pending) out.push('\\');
  }
  return out.reverse().join('');
}

/** A–Z to a–z, nothing else: the case-insensitivity of SQLite's LIKE. */
export function foldAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/**
 * A LIKE pattern (`%` any text, `_` one character, a backslash escapes the next) tested in code,
 * with `ESCAPE '\'` and A–Z folded on both sides: what the database answers.
 */
export function likeMatches(text: string, pattern: string): boolean {
  let source = '';
  const chars = [...foldAscii(pattern)];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) source += escapeRegExp(chars[++i]!);
    else if (c === '%') source += '.*';
    else if (c === '_') source += '.';
    else source += escapeRegExp(c);
  }
  return new RegExp(`^${source}$`, 'su').test(foldAscii(text));
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}
