import * as oidc from 'openid-client';
import type { Logger } from 'pino';
import type { ProviderConfig, ProviderName } from '../config.js';
import { ValidationError } from '../core/errors.js';

/**
 * The protocol side of sign-in with a provider, on `openid-client`: discovery (Google, the generic
 * OIDC issuer), the authorization URL with PKCE, the code exchange and the ID token's checks, and
 * reading the provider's user. GitHub is plain OAuth2: its endpoints are written down here and its
 * user comes from its REST API. Every call to a provider has the configured time limit, so a
 * provider that is down or slow fails the sign-in with a clear 400, never a hanging request.
 */

/** The provider's user as PocketBase's `meta` shows it (plus whether the email is verified). */
export interface ProviderUser {
  id: string;
  name: string;
  username: string;
  email: string;
  emailVerified: boolean;
  avatarURL: string;
  rawUser: Record<string, unknown>;
}

/** One provider's entry in auth-methods (PocketBase's providerInfo). */
export interface AuthMethodProvider {
  name: string;
  displayName: string;
  state: string;
  authURL: string;
  codeVerifier: string;
  codeChallenge: string;
  codeChallengeMethod: string;
}

export const TOKEN_FAILED = 'Failed to fetch OAuth2 token.';
export const USER_FAILED = 'Failed to fetch OAuth2 user.';
export const PROVIDER_TIMEOUT = 'The sign-in provider did not answer in time. Please try again.';
export const PROVIDER_UNREACHABLE =
  'The sign-in provider could not be reached. Please try again later.';

const SCOPES: Record<ProviderName, string> = {
  github: 'read:user user:email',
  google: 'openid email profile',
  oidc: 'openid email profile',
};

const GOOGLE_ISSUER = 'https://accounts.google.com';
const GITHUB_API = 'https://api.github.com';
const GITHUB_SERVER: oidc.ServerMetadata = {
  issuer: 'https://github.com',
  authorization_endpoint: 'https://github.com/login/oauth/authorize',
  token_endpoint: 'https://github.com/login/oauth/access_token',
};

/** Discovered metadata is used this long, then fetched again (the old copy serves meanwhile). */
const METADATA_FRESH_MS = 60 * 60_000;

interface Cached {
  config: oidc.Configuration;
  fetchedAt: number;
}

export class ProviderClients {
  private readonly cache = new Map<ProviderName, Cached>();
  private readonly pending = new Map<ProviderName, Promise<oidc.Configuration>>();

  constructor(
    readonly providers: readonly ProviderConfig[],
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  find(name: string): ProviderConfig | undefined {
    return this.providers.find((p) => p.name === name);
  }

  /** Fetches the discovery documents in the background, so the first sign-in does not wait. */
  warm(): void {
    for (const p of this.providers) {
      this.configuration(p).catch((err: unknown) =>
        this.log.warn({ provider: p.name, err: describe(err) }, 'provider discovery failed'),
      );
    }
  }

  /**
   * A fresh state and PKCE pair, and the provider's authorization URL ending in `redirect_uri=`
   * (the client appends its redirect address, as with PocketBase). Throws when the provider's
   * metadata cannot be had (auth-methods then leaves the provider out).
   */
  async authMethod(provider: ProviderConfig): Promise<AuthMethodProvider> {
    const config = await this.configuration(provider);
    const state = oidc.randomState();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const codeChallenge = await oidc.calculatePKCECodeChallenge(codeVerifier);
    const url = oidc.buildAuthorizationUrl(config, {
      response_type: 'code',
      scope: SCOPES[provider.name],
      state,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    });
    return {
      name: provider.name,
      displayName: provider.displayName,
      state,
      authURL: `${url.href}&redirect_uri=`,
      codeVerifier,
      codeChallenge,
      codeChallengeMethod: 'S256',
    };
  }

  /** Exchanges the code (with its PKCE verifier) and reads the provider's user. */
  async exchange(
    provider: ProviderConfig,
    input: { code: string; codeVerifier: string; redirectURL: string },
  ): Promise<ProviderUser> {
    const config = await this.configuration(provider).catch((err: unknown) => {
      throw failure(err, TOKEN_FAILED, this.log, provider.name);
    });
    const callback = new URL(input.redirectURL);
    callback.search = '';
    callback.hash = '';
    callback.searchParams.set('code', input.code);
    // RFC 9207: the provider names itself in its answer; the SDK does not pass it on, and this
    // is the provider the exchange talks to.
    const server = config.serverMetadata();
    if (server.authorization_response_iss_parameter_supported) {
      callback.searchParams.set('iss', server.issuer);
    }
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: input.codeVerifier || undefined,
        idTokenExpected: provider.name !== 'github',
      });
    } catch (err) {
      throw failure(err, TOKEN_FAILED, this.log, provider.name);
    }
    try {
      return provider.name === 'github'
        ? await this.githubUser(tokens.access_token)
        : await this.openIdUser(config, tokens);
    } catch (err) {
      throw failure(err, USER_FAILED, this.log, provider.name);
    }
  }

  private async openIdUser(
    config: oidc.Configuration,
    tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers,
  ): Promise<ProviderUser> {
    const idToken = tokens.claims();
    if (!idToken) throw new Error('no ID token');
    let claims: Record<string, unknown> = { ...idToken };
    // Claims asked for by scope usually come from userinfo (the ID token may hold only `sub`).
    if (config.serverMetadata().userinfo_endpoint) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub);
      claims = { ...claims, ...info };
    }
    const text = (key: string) => (typeof claims[key] === 'string' ? (claims[key] as string) : '');
    return {
      id: idToken.sub,
      name: text('name'),
      username: text('preferred_username'),
      email: text('email'),
      emailVerified: claims.email_verified === true || claims.email_verified === 'true',
      avatarURL: text('picture'),
      rawUser: claims,
    };
  }

  /** GitHub's user, and its primary email when GitHub has it verified. */
  private async githubUser(accessToken: string): Promise<ProviderUser> {
    const get = async (path: string): Promise<unknown> => {
      const res = await fetch(`${GITHUB_API}${path}`, {
        headers: {
          authorization: `Bearer ${accessToken}`,
          accept: 'application/vnd.github+json',
          'user-agent': 'Gatehouse',
        },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) throw new Error(`GitHub ${path}: ${res.status}`);
      return res.json();
    };
    const user = (await get('/user')) as Record<string, unknown>;
    if (typeof user.id !== 'number' && typeof user.id !== 'string') {
      throw new Error('GitHub user without id');
    }
    const emails = (await get('/user/emails')) as Array<{
      email: string;
      primary: boolean;
      verified: boolean;
    }>;
    const primary = Array.isArray(emails) ? emails.find((e) => e.primary) : undefined;
    const text = (key: string) => (typeof user[key] === 'string' ? (user[key] as string) : '');
    return {
      id: String(user.id),
      name: text('name'),
      username: text('login'),
      email: primary?.email ?? text('email'),
      emailVerified: primary?.verified === true,
      avatarURL: text('avatar_url'),
      rawUser: user,
    };
  }

  /** The provider's configuration: discovered (and kept for an hour), or GitHub's fixed one. */
  private configuration(provider: ProviderConfig): Promise<oidc.Configuration> {
    const cached = this.cache.get(provider.name);
    if (cached && Date.now() - cached.fetchedAt < METADATA_FRESH_MS) {
      return Promise.resolve(cached.config);
    }
    let pending = this.pending.get(provider.name);
    if (!pending) {
      pending = this.discover(provider)
        .then((config) => {
          this.cache.set(provider.name, { config, fetchedAt: Date.now() });
          return config;
        })
        .finally(() => this.pending.delete(provider.name));
      this.pending.set(provider.name, pending);
    }
    // A stale copy serves while the new one is fetched (and if fetching fails).
    if (cached) {
      pending.catch(() => {});
      return Promise.resolve(cached.config);
    }
    return pending;
  }

  private async discover(provider: ProviderConfig): Promise<oidc.Configuration> {
    const timeout = this.timeoutMs / 1000;
    const auth = oidc.ClientSecretPost(provider.clientSecret);
    if (provider.name === 'github') {
      const config = new oidc.Configuration(GITHUB_SERVER, provider.clientId, undefined, auth);
      config.timeout = timeout;
      return config;
    }
    const issuer = new URL(provider.name === 'google' ? GOOGLE_ISSUER : provider.issuer!);
    return oidc.discovery(issuer, provider.clientId, undefined, auth, {
      timeout,
      // Only a provider on this machine may be plain http (config.ts checks it).
      execute: issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
    });
  }
}

/**
 * The 400 a failed call to a provider answers with: a time-out and an unreachable provider say
 * so; anything else (a refused code, a bad answer) gets PocketBase's message. The detail is logged.
 */
function failure(err: unknown, message: string, log: Logger, provider: string): ValidationError {
  const kind = errorKind(err);
  log.warn({ provider, kind, err: describe(err) }, 'provider sign-in step failed');
  if (kind === 'timeout') return new ValidationError(PROVIDER_TIMEOUT);
  if (kind === 'unreachable') return new ValidationError(PROVIDER_UNREACHABLE);
  return new ValidationError(message);
}

function errorKind(err: unknown): 'timeout' | 'unreachable' | 'refused' {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const name = (e as Error).name;
    const code = (e as { code?: unknown }).code;
    if (name === 'TimeoutError' || name === 'AbortError') return 'timeout';
    if (
      typeof code === 'string' &&
      ['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'].includes(code)
    ) {
      return 'unreachable';
    }
    if (e instanceof TypeError && e.message === 'fetch failed' && !(e as Error).cause) {
      return 'unreachable';
    }
    e = (e as Error).cause;
  }
  return 'refused';
}

function describe(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    e = (e as Error).cause;
  }
  return parts.join(' <- ');
}
