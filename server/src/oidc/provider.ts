import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { KoaContext } from 'oidc-provider';
import type { AppContext } from '../core/context.js';
import { isOperator } from '../core/users.js';
import { lazyRequire } from '../tools/lazy-require.js';
import { nowString } from '../tools/time.js';
import { adapterClass } from './adapter.js';
import { ensureSigningKey, ID_TOKEN_TTL_SECONDS, KEYS_REFRESH_MS, loadKeys } from './keys.js';
import { errorPage, logoutPage, signedOutPage } from './pages.js';
import { linkSession } from './sessions.js';

/**
 * Gatehouse as an OpenID provider (docs/decisions/0060): `oidc-provider`, a certified
 * implementation, configured here and served under OIDC_PREFIX (routes.ts hands it the raw
 * request). Its records live in Gatehouse's database (adapter.ts), its keys too (keys.ts), so
 * instances of one database share them. It is made at the first request that needs it (the package
 * loads then: docs/decisions/0041), and made again when the keys or the app's address change.
 *
 * Members sign in on Gatehouse's own screens: the provider sends the browser to an interaction
 * (interactions.ts), which the web app completes after any way in.
 */

export const OIDC_PREFIX = '/oidc';

/** What an app may ask for. */
export const SCOPES = ['openid', 'profile', 'email', 'groups', 'offline_access'] as const;

/** Where the provider sends the browser for a sign-in or a consent (routes.ts). */
export function interactionPath(uid: string): string {
  return `/api/oidc/interactions/${uid}`;
}

const HOUR = 60 * 60;
const DAY = 24 * HOUR;

/** The member's claims, as an app receives them (filtered by the scopes granted). */
export interface MemberClaims {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
  picture?: string;
  groups: string[];
}

interface Built {
  provider: Provider;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  version: string;
  issuer: string;
}

export class OidcProvider {
  private built: Built | undefined;
  private building: Promise<Built> | undefined;
  private checkedAt = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly picture: (userId: string, avatar: string) => string | undefined,
  ) {}

  /** `APP_URL/oidc`: what apps are configured with (discovery is under it). */
  get issuer(): string {
    return `${this.ctx.settings.appUrl}${OIDC_PREFIX}`;
  }

  /** The provider, made (again) when needed. */
  async provider(): Promise<Provider> {
    return (await this.current()).provider;
  }

  /** Serves a request under OIDC_PREFIX (the raw request, its path with the prefix). */
  async handle(
    req: IncomingMessage & { originalUrl?: string },
    res: ServerResponse,
  ): Promise<void> {
    const { handler } = await this.current();
    // As a framework that mounts the provider under a path does: the provider sees its own paths
    // and builds its addresses with the prefix from `originalUrl`.
    req.originalUrl = req.url ?? '/';
    req.url = req.originalUrl.slice(OIDC_PREFIX.length) || '/';
    handler(req, res);
  }

  private async current(): Promise<Built> {
    const built = this.built;
    if (built && built.issuer === this.issuer && Date.now() - this.checkedAt < KEYS_REFRESH_MS) {
      return built;
    }
    this.building ??= this.refresh().finally(() => (this.building = undefined));
    return this.building;
  }

  private async refresh(): Promise<Built> {
    const { db, box } = this.ctx;
    await ensureSigningKey(db, box);
    const keys = await loadKeys(db, box);
    this.checkedAt = Date.now();
    const issuer = this.issuer;
    if (this.built && this.built.version === keys.version && this.built.issuer === issuer) {
      return this.built;
    }
    // require, not import(): an ES module that Node (20.19 and later) loads with require, since
    // the built server runs from V8's code cache, where Node 20 loses what import() needs
    // (docs/decisions/0065).
    const { default: ProviderClass } = lazyRequire<typeof import('oidc-provider')>('oidc-provider');
    const provider = new ProviderClass(issuer, this.configuration(keys.keys));
    // Behind the proxies TRUST_PROXY names, the request's scheme and host are the proxy's.
    provider.proxy = this.ctx.config.trustProxy !== false;
    provider.use(async (koa, next) => {
      await next();
      await this.afterSignIn(koa);
    });
    provider.on('server_error', (_koa: unknown, err: unknown) => {
      this.ctx.log.error({ err }, 'OpenID provider error');
    });
    this.built = { provider, handler: provider.callback(), version: keys.version, issuer };
    return this.built;
  }

  /**
   * After the provider resumed a sign-in that a Gatehouse session completed (interactions.ts puts
   * its id in the result): its session is linked to that Gatehouse session (sessions.ts).
   */
  private async afterSignIn(koa: KoaContext): Promise<void> {
    const result = koa.oidc?.result as
      | { login?: { accountId?: string }; gatehouse?: { sessionId?: string; expiresAt?: number } }
      | undefined;
    const session = koa.oidc?.session;
    const sessionId = result?.gatehouse?.sessionId;
    if (!result?.login || !sessionId || !session?.uid || !session.accountId) return;
    await linkSession(this.ctx.db, {
      uid: session.uid,
      sessionId,
      userId: session.accountId,
      expiresAt: result.gatehouse?.expiresAt ?? Math.floor(Date.now() / 1000) + 30 * DAY,
    });
  }

  /** The member behind `sub`, for `clientId` (when known): none when gone, disabled or not allowed. */
  async account(sub: string, clientId: string | undefined) {
    const user = await this.ctx.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', sub)
      .executeTakeFirst();
    if (!user || user.disabled === 1) return undefined;
    if (clientId) {
      const app = await this.ctx.db
        .selectFrom('oidc_clients')
        .select('allowed_group')
        .where('id', '=', clientId)
        .executeTakeFirst();
      if (!app || (app.allowed_group === 'operators' && !isOperator(user))) return undefined;
    }
    const picture = user.avatar ? this.picture(user.id, user.avatar) : undefined;
    const claims: MemberClaims = {
      sub: user.id,
      email: user.email,
      email_verified: user.verified === 1,
      ...(user.name ? { name: user.name } : {}),
      ...(picture ? { picture } : {}),
      groups: isOperator(user) ? ['members', 'operators'] : ['members'],
    };
    return { accountId: user.id, claims: async () => claims };
  }

  private configuration(keys: Record<string, string>[]): Record<string, unknown> {
    const { ctx } = this;
    // The same on every instance, and not in the database: the cookies' signing key.
    const cookieKey = ctx.box.digest('cookies', 'oidc-provider');
    return {
      adapter: adapterClass(ctx.db, ctx.box),
      jwks: { keys },
      cookies: {
        keys: [cookieKey],
        names: {
          session: 'gatehouse_oidc_session',
          interaction: 'gatehouse_oidc_interaction',
          resume: 'gatehouse_oidc_resume',
          state: 'gatehouse_oidc_state',
        },
        long: { signed: true, httpOnly: true, sameSite: 'lax' },
        short: { signed: true, httpOnly: true, sameSite: 'lax' },
      },
      scopes: [...SCOPES],
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name', 'picture'],
        groups: ['groups'],
      },
      // Apps that read the member from the ID token alone (many do) find the granted claims there.
      conformIdTokenClaims: false,
      responseTypes: ['code'],
      pkce: { required: () => true, methods: ['S256'] },
      features: {
        devInteractions: { enabled: false },
        revocation: { enabled: true },
        userinfo: { enabled: true },
        backchannelLogout: { enabled: true },
        rpInitiatedLogout: {
          enabled: true,
          logoutSource: async (koa: KoaContext, form: string) => {
            koa.body = logoutPage(ctx.settings.appName, koa.oidc.client?.clientName, form);
          },
          postLogoutSuccessSource: async (koa: KoaContext) => {
            koa.body = signedOutPage(
              ctx.settings.appName,
              ctx.settings.appUrl,
              koa.oidc.client?.clientName,
            );
          },
        },
      },
      renderError: async (koa: KoaContext, out: Record<string, string>) => {
        koa.type = 'html';
        koa.body = errorPage(ctx.settings.appName, ctx.settings.appUrl, out);
      },
      interactions: {
        url: async (_koa: unknown, interaction: { uid: string }) =>
          interactionPath(interaction.uid),
      },
      findAccount: (koa: KoaContext, sub: string, token?: { clientId?: string }) =>
        this.account(sub, token?.clientId ?? koa.oidc?.client?.clientId),
      loadExistingGrant: (koa: KoaContext) => this.existingGrant(koa),
      // Every app allowed to refresh gets a refresh token (not only those asking offline_access);
      // without offline_access it ends with the member's session.
      issueRefreshToken: async (
        _koa: unknown,
        client: { grantTypeAllowed(type: string): boolean },
      ) => client.grantTypeAllowed('refresh_token'),
      ttl: {
        AccessToken: HOUR,
        AuthorizationCode: 60,
        IdToken: ID_TOKEN_TTL_SECONDS,
        RefreshToken: 30 * DAY,
        Interaction: HOUR,
        Session: ctx.settings.sessionMaxDays * DAY,
        Grant: 366 * DAY,
        ClientCredentials: 10 * 60,
        BackchannelAuthenticationRequest: 10 * 60,
        DeviceCode: 10 * 60,
      },
      allowOmittingSingleRegisteredRedirectUri: false,
      // Single-page apps call the token and userinfo endpoints from the origin of their redirect.
      clientBasedCORS: (_koa: unknown, origin: string, client: { redirectUris?: string[] }) =>
        (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    };
  }

  /**
   * The grant a sign-in finds: this browser session's for the app, else one made from what the
   * member agreed to share with the app before (the consent screen's remembered answer, revoked in
   * Settings → Connected Apps). None: the provider asks for consent.
   */
  private async existingGrant(koa: KoaContext) {
    const { provider, session, client } = koa.oidc;
    const result = koa.oidc.result as { consent?: { grantId?: string } } | undefined;
    if (!session?.accountId || !client) return undefined;
    const grantId =
      result?.consent?.grantId ??
      (session as unknown as { grantIdFor(id: string): string | undefined }).grantIdFor(
        client.clientId,
      );
    if (grantId) {
      const grant = await provider.Grant.find(grantId);
      if (grant) return grant;
    }
    const consent = await this.ctx.db
      .selectFrom('oidc_consents')
      .select('scope')
      .where('user_id', '=', session.accountId)
      .where('client_id', '=', client.clientId)
      .executeTakeFirst();
    if (!consent) return undefined;
    const grant = new provider.Grant({ accountId: session.accountId, clientId: client.clientId });
    grant.addOIDCScope(consent.scope);
    await grant.save();
    await this.ctx.db
      .updateTable('oidc_consents')
      .set({ last_used: nowString() })
      .where('user_id', '=', session.accountId)
      .where('client_id', '=', client.clientId)
      .execute();
    return grant;
  }
}
