import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { freePort } from './ports.js';

/**
 * A real OpenID provider on 127.0.0.1 (`oidc-provider` with its development login page), started
 * by the tests themselves on a free port. Its login page takes any login (it becomes `sub`) and
 * any password; `setAccount` decides which email and `email_verified` that login has. Consent is
 * pre-granted (a first-party client), so the login page is the only page a member sees.
 *
 * Two clients share the redirect address: `gatehouse` (the server under test) and `other-app`
 * (for "a code issued to another client"). `mode` makes the provider misbehave: `slow` holds
 * every request (a provider that does not answer in time), `error` fails its token endpoint;
 * `down()` stops listening (refused connections), `up()` listens again on the same port.
 */

export interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export type ProviderMode = 'normal' | 'slow' | 'error';

export class TestOidcProvider {
  readonly clientId = 'gatehouse';
  readonly clientSecret = `secret-${randomBytes(12).toString('hex')}`;
  readonly otherClientId = 'other-app';
  mode: ProviderMode = 'normal';
  /** How long `slow` holds a request. */
  slowMs = 20_000;
  private readonly accounts = new Map<string, AccountClaims>();
  private server: http.Server | null = null;
  private port = 0;
  private held = new Set<NodeJS.Timeout>();
  private handler: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | null = null;

  private constructor(private readonly redirectUris: string[]) {}

  /** Starts a provider whose clients may send members back to `redirectUris`. */
  static async start(redirectUris: string[]): Promise<TestOidcProvider> {
    const p = new TestOidcProvider(redirectUris);
    p.port = await freePort();
    p.handler = p.provider().callback();
    await p.up();
    return p;
  }

  /** The issuer (OAUTH2_OIDC_ISSUER). */
  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Environment for a Gatehouse server that uses this provider. */
  env(name = 'Test ID'): Record<string, string> {
    return {
      OAUTH2_PROVIDERS: 'oidc',
      OAUTH2_OIDC_CLIENT_ID: this.clientId,
      OAUTH2_OIDC_CLIENT_SECRET: this.clientSecret,
      OAUTH2_OIDC_ISSUER: this.issuer,
      OAUTH2_OIDC_NAME: name,
    };
  }

  /** What the provider says about `login`'s email (default: `login@example.com`, verified). */
  setAccount(login: string, claims: AccountClaims): void {
    this.accounts.set(login, claims);
  }

  /** Listens (again) on 127.0.0.1, on the same port after `down()`. */
  async up(): Promise<void> {
    if (this.server) return;
    const handler = this.handler!;
    const server = http.createServer((req, res) => {
      if (this.mode === 'slow') {
        const timer = setTimeout(() => {
          this.held.delete(timer);
          handler(req, res);
        }, this.slowMs);
        this.held.add(timer);
        return;
      }
      if (this.mode === 'error' && req.url?.startsWith('/token')) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'server_error', error_description: 'broken' }));
        return;
      }
      handler(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    this.mode = 'normal';
  }

  /** Stops listening and drops every connection: the provider is down. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const timer of this.held) clearTimeout(timer);
    this.held.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  stop(): Promise<void> {
    return this.down();
  }

  /**
   * Goes through the provider's login page as a member would: opens `authURL` (auth-methods'
   * URL with the redirect address appended, as the SDK does), signs in as `login`, and returns
   * the `code` and `state` the provider sends back to the redirect address.
   */
  async authorize(
    authURL: string,
    login: string,
    options: { clientId?: string } = {},
  ): Promise<{ code: string; state: string; url: URL }> {
    const url = new URL(authURL);
    if (options.clientId) url.searchParams.set('client_id', options.clientId);
    const cookies = new Map<string, string>();
    const send = async (target: string, init: RequestInit = {}) => {
      const res = await fetch(target, {
        ...init,
        redirect: 'manual',
        headers: {
          ...(init.headers as Record<string, string> | undefined),
          cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
      return res;
    };
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    let res = await send(url.href);
    for (let hop = 0; hop < 10; hop++) {
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, this.issuer);
        if (redirectUri && next.href.startsWith(redirectUri)) {
          const code = next.searchParams.get('code');
          if (!code) throw new Error(`No code in ${next.href}`);
          return { code, state: next.searchParams.get('state') ?? '', url: next };
        }
        res = await send(next.href);
        continue;
      }
      const page = await res.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      if (res.status !== 200 || !action || !page.includes('name="login"')) {
        throw new Error(`Unexpected provider page (${res.status}): ${page.slice(0, 300)}`);
      }
      res = await send(new URL(action, this.issuer).href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
      });
    }
    throw new Error('Too many redirects at the provider');
  }

  private provider(): Provider {
    const client = (id: string) => ({
      client_id: id,
      client_secret: this.clientSecret,
      redirect_uris: this.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    const provider = new Provider(this.issuer, {
      clients: [client(this.clientId), client(this.otherClientId)],
      pkce: { required: () => true },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name', 'preferred_username'],
      },
      cookies: { keys: [randomBytes(16).toString('hex')] },
      features: { devInteractions: { enabled: true } },
      findAccount: (_ctx: unknown, sub: string) => ({
        accountId: sub,
        claims: () => ({
          sub,
          email: `${sub}@example.com`,
          email_verified: true,
          preferred_username: sub,
          ...this.accounts.get(sub),
        }),
      }),
      // A first-party client: consent is granted without asking.
      loadExistingGrant: async (ctx: {
        oidc: {
          provider: Provider;
          session: { accountId: string };
          client: { clientId: string };
        };
      }) => {
        const grant = new ctx.oidc.provider.Grant({
          accountId: ctx.oidc.session.accountId,
          clientId: ctx.oidc.client.clientId,
        });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    });
    return provider;
  }
}
