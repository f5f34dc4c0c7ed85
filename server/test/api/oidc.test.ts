import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDatabase } from '../support/db.js';
import {
  BackchannelReceiver,
  Browser,
  client,
  TestApp,
  verifiedClaims,
} from '../support/oidc-app.js';
import { freePort } from '../support/ports.js';
import { DATABASES, startTestServer, type TestServer, type User } from '../support/server.js';

/**
 * Gatehouse as an OpenID provider, with a real relying party (openid-client) as the app: discovery
 * and JWKS, the code flow with PKCE through Gatehouse's sign-in and consent steps, the claims, refresh,
 * logout, back-channel logout when the member's session ends, and the refusals (a wrong redirect
 * address, no PKCE verifier, a code used twice, an app for operators only, a guest).
 */

const APPS = '/api/admin/apps';

async function gatehouseOn(db: 'sqlite' | 'postgres'): Promise<TestServer> {
  const port = await freePort();
  return startTestServer({ db, env: { PORT: String(port), APP_URL: `http://127.0.0.1:${port}` } });
}

/** Registers an app through the operators' API; returns it with its one-time secret. */
async function register(
  t: TestServer,
  operator: User,
  fields: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const res = await t.post(
    APPS,
    {
      name: 'Wiki',
      redirectUris: ['http://127.0.0.1:9/app/callback'],
      postLogoutRedirectUris: ['http://127.0.0.1:9/app/signed-out'],
      type: 'confidential',
      group: 'members',
      ...fields,
    },
    operator.token,
  );
  expect(res.status, res.text).toBe(200);
  return { id: res.body.app.id, secret: res.body.secret };
}

describe.each(DATABASES)('Gatehouse as an OpenID provider on %s', (db) => {
  let t: TestServer;
  let operator: User;
  let backchannel: BackchannelReceiver;
  let app: TestApp;

  beforeAll(async () => {
    t = await gatehouseOn(db);
    operator = await t.initialUser();
    backchannel = await BackchannelReceiver.start();
    const { id, secret } = await register(t, operator, {
      backchannelLogoutUri: backchannel.url,
    });
    app = new TestApp(t.url, id, secret);
    await app.discover();
  });
  afterAll(async () => {
    await t?.close();
    await backchannel?.stop();
  });

  it('publishes discovery and a JWKS with one signing key', async () => {
    const meta = app.config.serverMetadata();
    expect(meta.issuer).toBe(`${t.url}/oidc`);
    expect(meta.authorization_endpoint).toBe(`${t.url}/oidc/auth`);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'email', 'profile', 'groups']),
    );
    expect(meta.backchannel_logout_supported).toBe(true);
    expect(meta.end_session_endpoint).toBe(`${t.url}/oidc/session/end`);
    const jwks = (await (await fetch(meta.jwks_uri!)).json()) as {
      keys: Record<string, unknown>[];
    };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    // Never the private parts.
    expect(jwks.keys[0]).not.toHaveProperty('d');
    // The key is kept sealed, not as a readable JWK.
    const stored = await withDatabase(t, (d) => d.selectFrom('oidc_keys').selectAll().execute());
    expect(stored).toHaveLength(1);
    expect(stored[0]!.jwk).toMatch(/^v1\./);
    expect(stored[0]!.jwk).not.toContain('"d"');
  });

  it('signs a member in through consent: ID token, userinfo and refresh carry their claims', async () => {
    const member = await t.verifiedUser();
    await t.patch(
      `/api/collections/users/records/${member.id}`,
      { name: 'Ada Member' },
      member.token,
    );
    const browser = new Browser();
    const signIn = await app.signIn(browser, member.token);
    expect(signIn.prompts).toEqual(['login', 'consent']);
    const tokens = await app.tokens(signIn.callback, signIn);
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: `${t.url}/oidc`,
      sub: member.id,
      aud: app.clientId,
      email: member.email,
      email_verified: true,
      name: 'Ada Member',
      groups: ['members'],
    });
    const info = await app.userinfo(tokens.access_token, member.id);
    expect(info).toMatchObject({
      sub: member.id,
      email: member.email,
      email_verified: true,
      name: 'Ada Member',
      groups: ['members'],
    });
    expect(info).not.toHaveProperty('picture');
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await app.refresh(tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.claims()!.sub).toBe(member.id);
    expect(await app.userinfo(refreshed.access_token, member.id)).toMatchObject({ sub: member.id });

    // Consent is remembered: another browser, another sign-in, no consent screen.
    const again = await app.signIn(new Browser(), member.token);
    expect(again.prompts).toEqual(['login']);
    // The same browser: no screen at all.
    const same = await app.signIn(browser, member.token);
    expect(same.prompts).toEqual([]);
  });

  it("an operator's groups say so", async () => {
    const signIn = await app.signIn(new Browser(), operator.token);
    const tokens = await app.tokens(signIn.callback, signIn);
    expect(tokens.claims()!.groups).toEqual(['members', 'operators']);
  });

  it('refuses a redirect address that is not registered exactly, without going there', async () => {
    const browser = new Browser();
    for (const wrong of ['http://127.0.0.1:9/app/callback/', 'http://evil.example/callback']) {
      const req = await app.request({ redirect_uri: wrong });
      const res = await browser.fetch(req.url.href);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('redirect_uri');
    }
  });

  it('refuses a request without PKCE, and a code exchanged without its verifier', async () => {
    const member = await t.verifiedUser();
    const browser = new Browser();
    // No code_challenge: the app is sent back with invalid_request.
    const req = await app.request();
    const url = new URL(req.url);
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const stop = await app.follow(browser, url.href);
    expect(stop.kind).toBe('callback');
    if (stop.kind !== 'callback') return;
    expect(stop.url.searchParams.get('error')).toBe('invalid_request');
    expect(stop.url.searchParams.get('error_description')).toMatch(/PKCE/);

    // A code exchanged without the verifier: invalid_grant.
    const signIn = await app.signIn(browser, member.token);
    const meta = app.config.serverMetadata();
    const res = await fetch(meta.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: signIn.callback.searchParams.get('code')!,
        redirect_uri: app.redirectUri,
        client_id: app.clientId,
        client_secret: app.clientSecret!,
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a code used twice, and ends what the first use gave', async () => {
    const member = await t.verifiedUser();
    const signIn = await app.signIn(new Browser(), member.token);
    const first = await app.tokens(signIn.callback, signIn);
    const replay = await app.tokens(signIn.callback, signIn).catch((err: unknown) => err);
    expect(replay).toBeInstanceOf(client.ResponseBodyError);
    expect((replay as client.ResponseBodyError).error).toBe('invalid_grant');
    // The first exchange's tokens are revoked (the code was stolen or replayed).
    const info = await app.userinfo(first.access_token, member.id).catch((err: unknown) => err);
    expect(info).toBeInstanceOf(Error);
    const refresh = await app.refresh(first.refresh_token!).catch((err: unknown) => err);
    expect((refresh as client.ResponseBodyError).error).toBe('invalid_grant');
  });

  it('turns away a guest and a member the app is not for; Cancel returns access_denied', async () => {
    const browser = new Browser();
    const req = await app.request();
    const stop = await app.follow(browser, req.url.href);
    expect(stop.kind).toBe('screen');
    if (stop.kind !== 'screen') return;
    expect(stop.details).toMatchObject({ prompt: 'login', app: { name: 'Wiki' }, allowed: true });
    // Nothing signs a guest in: no token, no sign-in (and no account is made here).
    const guest = await app.step(browser, stop.uid, 'login');
    expect(guest.status).toBe(401);
    // Another browser cannot complete this browser's sign-in, even with a member's token.
    const member = await t.verifiedUser();
    const other = await app.step(new Browser(), stop.uid, 'login', member.token);
    expect(other.status).toBe(404);
    // Cancel: back to the app with access_denied.
    const cancel = await app.step(browser, stop.uid, 'abort');
    expect(cancel.status).toBe(200);
    const back = await app.follow(browser, String(cancel.body.redirect));
    expect(back.kind === 'callback' && back.url.searchParams.get('error')).toBe('access_denied');

    // An app for operators only: a member is refused, an operator is let in.
    const ops = await register(t, operator, { name: 'Grafana', group: 'operators' });
    const opsApp = new TestApp(t.url, ops.id, ops.secret);
    await opsApp.discover();
    const b2 = new Browser();
    const s2 = await opsApp.follow(b2, (await opsApp.request()).url.href);
    if (s2.kind !== 'screen') throw new Error('expected the sign-in screen');
    const refused = await opsApp.step(b2, s2.uid, 'login', member.token);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Grafana is for operators only.');
    const details = await b2.fetch(`${t.url}/api/oidc/interactions/${s2.uid}/details`, {
      headers: { authorization: member.token },
    });
    expect(await details.json()).toMatchObject({ group: 'operators', allowed: false });
    const ok = await opsApp.signIn(new Browser(), operator.token);
    expect(ok.callback.searchParams.get('code')).toBeTruthy();
  });

  it("a disabled member's refresh fails and the app hears a back-channel logout", async () => {
    const member = await t.verifiedUser();
    const signIn = await app.signIn(new Browser(), member.token);
    const tokens = await app.tokens(signIn.callback, signIn);
    const sid = tokens.claims()!.sid;
    expect(sid).toBeTruthy();
    const before = backchannel.tokens.length;
    const disable = await t.post(`/api/admin/members/${member.id}/disable`, {}, operator.token);
    expect(disable.status, disable.text).toBe(200);
    const logout = await backchannel.nth(before + 1, app.config.serverMetadata().jwks_uri!);
    expect(logout).toMatchObject({ iss: `${t.url}/oidc`, sub: member.id, aud: app.clientId, sid });
    expect(logout.events).toHaveProperty(['http://schemas.openid.net/event/backchannel-logout']);
    const refresh = await app.refresh(tokens.refresh_token!).catch((err: unknown) => err);
    expect((refresh as client.ResponseBodyError).error).toBe('invalid_grant');
    const info = await app.userinfo(tokens.access_token, member.id).catch((err: unknown) => err);
    expect(info).toBeInstanceOf(Error);
  });

  it('signing out everywhere else ends the apps signed in on those devices', async () => {
    const member = await t.verifiedUser();
    const laptop = member.token;
    const phone = await t.tokenFor(member);
    const onPhone = await app.signIn(new Browser(), phone);
    const phoneTokens = await app.tokens(onPhone.callback, onPhone);
    const onLaptop = await app.signIn(new Browser(), laptop);
    const laptopTokens = await app.tokens(onLaptop.callback, onLaptop);
    const before = backchannel.tokens.length;
    const res = await t.del('/api/gatehouse/sessions', laptop);
    expect(res.status, res.text).toBe(204);
    const logout = await backchannel.nth(before + 1, app.config.serverMetadata().jwks_uri!);
    expect(logout).toMatchObject({ sub: member.id, sid: phoneTokens.claims()!.sid });
    const refused = await app.refresh(phoneTokens.refresh_token!).catch((err: unknown) => err);
    expect((refused as client.ResponseBodyError).error).toBe('invalid_grant');
    // The laptop's app session goes on.
    expect((await app.refresh(laptopTokens.refresh_token!)).access_token).toBeTruthy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(backchannel.tokens.length).toBe(before + 1);
  });

  it('a session past its absolute end: the clean-up job ends the apps signed in on it', async () => {
    const member = await t.verifiedUser();
    const signIn = await app.signIn(new Browser(), member.token);
    const tokens = await app.tokens(signIn.callback, signIn);
    // The session reaches its end with no event (nothing signed it out): the app goes on…
    await withDatabase(t, (kdb) =>
      kdb
        .updateTable('sessions')
        .set({ expires: '2026-01-01 00:00:00.000Z' })
        .where('user_id', '=', member.id)
        .execute(),
    );
    const fresh = await app.refresh(tokens.refresh_token!);
    expect(fresh.access_token).toBeTruthy();
    // …until the job's next run, which one instance makes (an operator runs it now here).
    const before = backchannel.tokens.length;
    const run = await t.post('/api/crons/oidc_sessions_cleanup', {}, operator.token);
    expect(run.status, run.text).toBe(204);
    const logout = await backchannel.nth(before + 1, app.config.serverMetadata().jwks_uri!);
    expect(logout).toMatchObject({ sub: member.id, sid: tokens.claims()!.sid });
    const refused = await app.refresh(fresh.refresh_token!).catch((err: unknown) => err);
    expect((refused as client.ResponseBodyError).error).toBe('invalid_grant');
  });

  it('logs out from the app (RP-initiated), and back to its address', async () => {
    const member = await t.verifiedUser();
    const browser = new Browser();
    const signIn = await app.signIn(browser, member.token);
    const tokens = await app.tokens(signIn.callback, signIn);
    const url = client.buildEndSessionUrl(app.config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: app.postLogoutRedirectUri,
      state: 'bye',
    });
    const page = await browser.fetch(url.href);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Sign out of Wiki?');
    const form = /<form[^>]*action="([^"]+)"[\s\S]*?name="xsrf" value="([^"]+)"/.exec(html)!;
    const before = backchannel.tokens.length;
    const done = await browser.fetch(new URL(form[1]!, t.url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: form[2]!, logout: 'yes' }).toString(),
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${app.postLogoutRedirectUri}?state=bye`);
    const logout = await backchannel.nth(before + 1, app.config.serverMetadata().jwks_uri!);
    expect(logout.sid).toBe(tokens.claims()!.sid);
    const refused = await app.refresh(tokens.refresh_token!).catch((err: unknown) => err);
    expect((refused as client.ResponseBodyError).error).toBe('invalid_grant');
    // Signed out of the app only: the member's Gatehouse session goes on.
    expect((await t.get('/api/gatehouse/sessions', member.token)).status).toBe(200);
  });

  it('Connected Apps lists the app; revoking it ends its access, and it asks again', async () => {
    const member = await t.verifiedUser();
    const signIn = await app.signIn(new Browser(), member.token);
    const tokens = await app.tokens(signIn.callback, signIn);
    const list = await t.get('/api/gatehouse/apps', member.token);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      items: [
        {
          id: app.clientId,
          name: 'Wiki',
          scopes: ['openid', 'email', 'profile', 'groups'],
          created: expect.any(String),
          lastUsed: expect.any(String),
        },
      ],
    });
    expect((await t.del(`/api/gatehouse/apps/${app.clientId}`, member.token)).status).toBe(204);
    expect((await t.get('/api/gatehouse/apps', member.token)).body).toEqual({ items: [] });
    expect((await t.del(`/api/gatehouse/apps/${app.clientId}`, member.token)).status).toBe(404);
    const refused = await app.refresh(tokens.refresh_token!).catch((err: unknown) => err);
    expect((refused as client.ResponseBodyError).error).toBe('invalid_grant');
    const again = await app.signIn(new Browser(), member.token);
    expect(again.prompts).toEqual(['login', 'consent']);
  });

  it('operators register apps; members cannot; the secret is shown once and the fields checked', async () => {
    const member = await t.verifiedUser();
    expect((await t.get(APPS, member.token)).status).toBe(403);
    expect((await t.get(APPS)).status).toBe(401);
    const bad = await t.post(
      APPS,
      { name: '', redirectUris: ['http://wiki.example/cb#x'], type: 'secret', group: 'all' },
      operator.token,
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.data).sort()).toEqual(['group', 'name', 'redirectUris', 'type']);
    const pub = await t.post(
      APPS,
      {
        name: 'Notes',
        redirectUris: ['https://notes.example/callback'],
        type: 'public',
        group: 'members',
      },
      operator.token,
    );
    expect(pub.status).toBe(200);
    expect(pub.body.secret).toBe('');
    expect(pub.body.app).toMatchObject({ type: 'public', authMethod: 'none' });
    const list = await t.get(APPS, operator.token);
    expect(list.body.issuer).toBe(`${t.url}/oidc`);
    expect(JSON.stringify(list.body)).not.toContain(app.clientSecret!);
    const ids = (list.body.items as Array<{ id: string }>).map((a) => a.id);
    expect(ids).toContain(pub.body.app.id);
    // A new secret: the old one stops working at once.
    const renewed = await t.post(`${APPS}/${app.clientId}/secret`, {}, operator.token);
    expect(renewed.status).toBe(200);
    const old = app.clientSecret!;
    const stale = new TestApp(t.url, app.clientId, old);
    await stale.discover();
    const signIn = await stale.signIn(new Browser(), operator.token);
    const refused = await stale.tokens(signIn.callback, signIn).catch((err: unknown) => err);
    expect((refused as client.ResponseBodyError).error).toBe('invalid_client');
    app = new TestApp(t.url, app.clientId, renewed.body.secret);
    await app.discover();
    // Removed: the app can no longer sign anyone in.
    expect((await t.del(`${APPS}/${pub.body.app.id}`, operator.token)).status).toBe(204);
    const gone = new TestApp(t.url, pub.body.app.id, undefined, 'https://notes.example');
    await gone.discover();
    const res = await new Browser().fetch((await gone.request()).url.href);
    expect(res.status).toBe(400);
  });

  it('ID tokens verify against the published keys', async () => {
    const signIn = await app.signIn(new Browser(), operator.token);
    const tokens = await app.tokens(signIn.callback, signIn);
    const claims = await verifiedClaims(tokens.id_token!, app.config.serverMetadata().jwks_uri!);
    expect(claims.sub).toBe(operator.id);
  });
});
