import { createPublicKey, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';

/**
 * An app that signs its members in with Gatehouse, as a real relying party does: `openid-client`
 * for discovery, the authorization request with PKCE, the code exchange, userinfo, refresh and
 * logout; a small HTTP server for the back-channel logouts Gatehouse sends it; and a browser
 * (cookie jar, redirects followed by hand) going through Gatehouse's sign-in steps.
 */

export interface LogoutToken {
  iss: string;
  sub: string;
  sid?: string;
  aud: string;
  events: Record<string, unknown>;
}

/** Receives back-channel logouts (POST logout_token=…) and keeps each token's verified claims. */
export class BackchannelReceiver {
  readonly received: LogoutToken[] = [];
  private server: http.Server | null = null;
  url = '';

  static async start(): Promise<BackchannelReceiver> {
    const r = new BackchannelReceiver();
    r.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const token = new URLSearchParams(body).get('logout_token');
        if (req.method === 'POST' && token) r.tokens.push(token);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => r.server!.listen(0, '127.0.0.1', resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/backchannel`;
    return r;
  }

  /** The raw tokens, in the order they came. */
  readonly tokens: string[] = [];

  /** Waits for the `n`th token and returns its claims, its signature checked against `jwksUri`. */
  async nth(n: number, jwksUri: string, timeoutMs = 10_000): Promise<LogoutToken> {
    const end = Date.now() + timeoutMs;
    while (this.tokens.length < n) {
      if (Date.now() > end) throw new Error(`No back-channel logout #${n} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return (await verifiedClaims(this.tokens[n - 1]!, jwksUri)) as unknown as LogoutToken;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** A JWT's claims, after checking its RS256 signature with the key its `kid` names in the JWKS. */
export async function verifiedClaims(
  jwt: string,
  jwksUri: string,
): Promise<Record<string, unknown>> {
  const [head, body, sig] = jwt.split('.') as [string, string, string];
  const header = JSON.parse(Buffer.from(head, 'base64url').toString()) as {
    kid: string;
    alg: string;
  };
  const jwks = (await (await fetch(jwksUri)).json()) as { keys: Array<{ kid: string }> };
  const jwk = jwks.keys.find((k) => k.kid === header.kid);
  if (!jwk || header.alg !== 'RS256') throw new Error(`No key ${header.kid} (${header.alg})`);
  const key = createPublicKey({ key: jwk as never, format: 'jwk' });
  const ok = verify('sha256', Buffer.from(`${head}.${body}`), key, Buffer.from(sig, 'base64url'));
  if (!ok) throw new Error('Bad signature');
  return JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
}

/** A browser: cookies by name (paths ignored), redirects followed by hand. */
export class Browser {
  readonly cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string> | undefined),
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
}

/** Where a step of the sign-in left the browser. */
export type Stop =
  | { kind: 'callback'; url: URL }
  | { kind: 'screen'; uid: string; prompt: 'login' | 'consent'; details: Record<string, unknown> }
  | { kind: 'page'; status: number; text: string };

export class TestApp {
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string;
  config!: client.Configuration;

  constructor(
    readonly gatehouse: string,
    readonly clientId: string,
    readonly clientSecret: string | undefined,
    base = 'http://127.0.0.1:9/app',
  ) {
    this.redirectUri = `${base}/callback`;
    this.postLogoutRedirectUri = `${base}/signed-out`;
  }

  get issuer(): string {
    return `${this.gatehouse}/oidc`;
  }

  async discover(): Promise<client.Configuration> {
    this.config = await client.discovery(
      new URL(this.issuer),
      this.clientId,
      this.clientSecret,
      this.clientSecret ? undefined : client.None(),
      { execute: [client.allowInsecureRequests] },
    );
    return this.config;
  }

  /** A fresh authorization request: its URL, PKCE verifier, state and nonce. */
  async request(params: Record<string, string> = {}) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(this.config, {
      redirect_uri: this.redirectUri,
      scope: 'openid email profile groups',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...params,
    });
    return { url, verifier, state };
  }

  /** Follows redirects from `url` until the app's callback, a Gatehouse screen, or a page. */
  async follow(browser: Browser, url: string): Promise<Stop> {
    let next = url;
    for (let hop = 0; hop < 12; hop++) {
      if (next.startsWith(this.redirectUri)) return { kind: 'callback', url: new URL(next) };
      const res = await browser.fetch(next);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        const target = new URL(location, next);
        const screen = /^\/authorize\/([^/]+)$/.exec(target.pathname);
        if (screen && target.origin === this.gatehouse) {
          const uid = decodeURIComponent(screen[1]!);
          const details = await browser.fetch(
            `${this.gatehouse}/api/oidc/interactions/${uid}/details`,
          );
          const body = (await details.json()) as Record<string, unknown>;
          if (details.status !== 200)
            throw new Error(`details: ${details.status} ${JSON.stringify(body)}`);
          return { kind: 'screen', uid, prompt: body.prompt as 'login' | 'consent', details: body };
        }
        next = target.href;
        continue;
      }
      return { kind: 'page', status: res.status, text: await res.text() };
    }
    throw new Error('Too many redirects');
  }

  /** POSTs a step of the sign-in as the web app does (with the member's token when given). */
  async step(browser: Browser, uid: string, action: 'login' | 'consent' | 'abort', token?: string) {
    const res = await browser.fetch(`${this.gatehouse}/api/oidc/interactions/${uid}/${action}`, {
      method: 'POST',
      headers: token ? { authorization: token } : {},
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  /**
   * A member signing in to the app in `browser` with their Gatehouse token: through the sign-in
   * and (when asked) the consent screen, to the callback. Returns the callback and which screens
   * were shown.
   */
  async signIn(browser: Browser, token: string, params: Record<string, string> = {}) {
    const req = await this.request(params);
    const prompts: string[] = [];
    let stop = await this.follow(browser, req.url.href);
    while (stop.kind === 'screen') {
      prompts.push(stop.prompt);
      const done = await this.step(browser, stop.uid, stop.prompt, token);
      if (done.status !== 200)
        throw new Error(`${stop.prompt}: ${done.status} ${JSON.stringify(done.body)}`);
      stop = await this.follow(browser, String(done.body.redirect));
    }
    if (stop.kind !== 'callback')
      throw new Error(`Ended on a page: ${stop.status} ${stop.text.slice(0, 300)}`);
    return { ...req, callback: stop.url, prompts };
  }

  /** Exchanges the callback's code (openid-client checks state, PKCE, the ID token). */
  tokens(callback: URL, req: { verifier: string; state: string }) {
    return client.authorizationCodeGrant(this.config, callback, {
      pkceCodeVerifier: req.verifier,
      expectedState: req.state,
    });
  }

  userinfo(accessToken: string, sub: string) {
    return client.fetchUserInfo(this.config, accessToken, sub);
  }

  refresh(refreshToken: string) {
    return client.refreshTokenGrant(this.config, refreshToken);
  }
}

export { client };
