import { expect, it } from 'vitest';
import { envelope } from './contract.js';
import type { ApiResponse, Json } from './http.js';
import type { TestServer } from './server.js';

/** Values a row's `before` prepares (tokens, ids, emails, codes) for its request and checks. */
export type Vars = Record<string, string>;
type Dyn<T> = T | ((v: Vars) => T);
type JsonValue = Record<string, unknown> | unknown[] | string | number | boolean | null;

/**
 * One API scenario, in the spirit of PocketBase's `tests.ApiScenario`: a request, the expected
 * status and body, and the side effects to check afterwards.
 */
export interface Scenario {
  name: string;
  /** Prepares state through the API; the returned values feed the dynamic fields below. */
  before?: (t: TestServer) => Promise<Vars>;
  method: string;
  path: Dyn<string>;
  headers?: Dyn<Record<string, string>>;
  /** A JSON body (objects, arrays, strings, numbers...). */
  body?: JsonValue | ((v: Vars) => JsonValue);
  /** A raw body, sent byte for byte. */
  raw?: string;
  status: number;
  /** The exact JSON body. */
  json?: JsonValue | ((v: Vars) => JsonValue);
  /** The exact error envelope: message and the field → code map of `data`. */
  error?: {
    message: string;
    fields?: Record<string, string>;
    /** A 401's `reason`: why the session the token once held ended (docs/api.md). */
    reason?: string;
  };
  /** Substrings the raw body must (not) contain. */
  contains?: Dyn<string[]>;
  notContains?: Dyn<string[]>;
  /** The body must be empty (204, HEAD). */
  empty?: boolean;
  /** Side effects, checked after the response. */
  after?: (t: TestServer, v: Vars, res: ApiResponse) => Promise<void>;
  only?: boolean;
}

const resolve = <T>(value: Dyn<T> | undefined, v: Vars): T | undefined =>
  typeof value === 'function' ? (value as (v: Vars) => T)(v) : value;

export async function runScenario(t: TestServer, row: Scenario): Promise<ApiResponse> {
  const vars = row.before ? await row.before(t) : {};
  const body = resolve(row.body, vars);
  const res = await t.request(row.method, resolve(row.path, vars)!, {
    headers: resolve(row.headers, vars) ?? {},
    ...(row.raw !== undefined ? { raw: row.raw } : body !== undefined ? { body } : {}),
  });
  const where = `${row.method} ${resolve(row.path, vars)} → ${res.status} ${res.text.slice(0, 500)}`;
  expect(res.status, where).toBe(row.status);
  // Headers every response carries.
  expect(res.headers['x-content-type-options'], 'X-Content-Type-Options').toBe('nosniff');
  expect(res.headers['referrer-policy'], 'Referrer-Policy').toBe('no-referrer');
  if (row.json !== undefined) expect(res.body, where).toEqual(resolve(row.json, vars));
  if (row.error) {
    const reason = row.error.reason ? { reason: row.error.reason } : {};
    expect(res.body, where).toEqual({
      ...envelope(row.status, row.error.message, row.error.fields),
      ...reason,
    });
  }
  if (row.status >= 400) expectErrorShape(res);
  for (const s of resolve(row.contains, vars) ?? []) expect(res.text, where).toContain(s);
  for (const s of resolve(row.notContains, vars) ?? []) expect(res.text, where).not.toContain(s);
  if (row.empty) expect(res.text, where).toBe('');
  if (row.after) await row.after(t, vars, res);
  return res;
}

/** The envelope rules that hold for every error (docs/api.md, Conventions). */
export function expectErrorShape(res: ApiResponse): void {
  const b: Json = res.body;
  expect(res.headers['content-type'] ?? '').toMatch(/application\/json/);
  // The one exception: the answer that asks for the second sign-in step also carries `mfaId`.
  // And a 401 to a token that once held a session may say why it ended (`reason`).
  const extra = res.status === 401 && typeof b?.mfaId === 'string' ? ['mfaId'] : [];
  if (res.status === 401 && typeof b?.reason === 'string') extra.push('reason');
  expect(Object.keys(b ?? {}).sort()).toEqual(['data', 'message', ...extra, 'status']);
  expect(b.status).toBe(res.status);
  expect(typeof b.data).toBe('object');
  expect(Array.isArray(b.data)).toBe(false);
  expect(b.message).toMatch(/^[A-Z].*[.?!]$/s);
}

/** Declares one `it` per row against the server `get()` returns when the row runs. */
export function scenarios(get: () => TestServer, rows: Scenario[]): void {
  for (const row of rows) {
    (row.only ? it.only : it)(row.name, async () => {
      await runScenario(get(), row);
    });
  }
}
