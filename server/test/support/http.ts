import { randomInt } from 'node:crypto';
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

/** Parsed JSON bodies are read freely in assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface ApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  body: Json;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Sent as JSON (Content-Type: application/json unless a header says otherwise). */
  body?: unknown;
  /** Sent as is (Content-Type: application/json unless a header says otherwise). */
  raw?: string | Buffer;
}

/** One HTTP request through node:http, with full control over method, path, headers and body. */
export function request(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const base = new URL(baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  let payload: Buffer | undefined;
  if (options.raw !== undefined) payload = Buffer.from(options.raw);
  else if (options.body !== undefined) payload = Buffer.from(JSON.stringify(options.body));
  if (payload !== undefined) {
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['Content-Type'] = 'application/json';
    }
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Json;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Decodes one base64url JWT segment to JSON. */
export function decodeJwtPart(token: string, index: 0 | 1): Json {
  const part = token.split('.')[index];
  if (part === undefined) throw new Error(`Not a JWT: ${token}`);
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

export const jwtPayload = (token: string): Json => decodeJwtPart(token, 1);
export const jwtHeader = (token: string): Json => decodeJwtPart(token, 0);

/** A token with the same header and payload but a different, wrong signature. */
export function tamperSignature(token: string): string {
  const [h, p, s] = token.split('.');
  const sig = Buffer.from(s ?? '', 'base64url');
  sig[0] = (sig[0] ?? 0) ^ 0xff;
  return `${h}.${p}.${sig.toString('base64url')}`;
}

/** The same claims, unsigned: header `alg: none` and an empty signature. */
export function unsigned(token: string): string {
  const [, p] = token.split('.');
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  return `${header}.${p}.`;
}

/** A token whose payload was changed (signature left alone, so it no longer verifies). */
export function withPayload(token: string, change: (p: Json) => Json): string {
  const [h, , s] = token.split('.');
  const payload = change(jwtPayload(token));
  return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
}

/** The client addresses freshAddress gives: 198.51.0.1 to 198.51.255.254. */
const ADDRESSES = 256 * 254;
/** Where this process starts in them: a random place, apart from another run's on a shared Redis. */
let addressesGiven = randomInt(0, ADDRESSES);

/**
 * A client address no other call in this test process got (X-Forwarded-For with TRUST_PROXY), so
 * that one test's failures never count against another's address. (Random ones met again now and
 * then, and a test found its address already limited.)
 */
export function freshAddress(): string {
  const n = addressesGiven++ % ADDRESSES;
  return `198.51.${Math.floor(n / 254)}.${(n % 254) + 1}`;
}
