import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, client, TestApp } from '../support/oidc-app.js';
import { freePort } from '../support/ports.js';
import { startTestServer, type TestServer, type User } from '../support/server.js';

/**
 * Two instances of Gatehouse on one PostgreSQL database, behind one address (APP_URL, the
 * issuer): the provider's sign-ins, codes, grants and tokens live in the shared database, so a
 * member who signs in to an app through one instance has the code exchanged and the tokens
 * refreshed by the other.
 */
describe('Gatehouse as an OpenID provider on two instances of one PostgreSQL database', () => {
  let a: TestServer;
  let b: TestServer;
  let operator: User;
  let onA: TestApp;
  let onB: TestApp;

  beforeAll(async () => {
    const port = await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    a = await startTestServer({ db: 'postgres', env: { PORT: String(port), APP_URL: appUrl } });
    b = await startTestServer({
      db: 'postgres',
      shareDatabaseOf: a,
      env: { PORT: String(await freePort()), APP_URL: appUrl },
    });
    operator = await a.initialUser();
    const res = await a.post(
      '/api/admin/apps',
      {
        name: 'Wiki',
        redirectUris: ['http://127.0.0.1:9/app/callback'],
        type: 'confidential',
        group: 'members',
      },
      operator.token,
    );
    expect(res.status, res.text).toBe(200);
    const { id } = res.body.app as { id: string };
    const secret = res.body.secret as string;
    onA = new TestApp(a.url, id, secret);
    await onA.discover();
    // The same app, whose requests to the token endpoint reach the other instance.
    onB = new TestApp(b.url, id, secret);
    onB.config = new client.Configuration(
      {
        ...(JSON.parse(JSON.stringify(onA.config.serverMetadata())) as client.ServerMetadata),
        token_endpoint: `${b.url}/oidc/token`,
      },
      id,
      secret,
    );
    client.allowInsecureRequests(onB.config);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('signs in on one, exchanges the code and refreshes on the other', async () => {
    const member = await a.verifiedUser();
    const signIn = await onA.signIn(new Browser(), member.token);
    expect(signIn.prompts).toEqual(['login', 'consent']);

    const tokens = await onB.tokens(signIn.callback, signIn);
    expect(tokens.claims()).toMatchObject({ sub: member.id, email: member.email });
    expect(tokens.refresh_token).toBeTruthy();

    const refreshed = await onB.refresh(tokens.refresh_token!);
    expect(refreshed.claims()).toMatchObject({ sub: member.id });
    // And back on the first, with the newest refresh token.
    const again = await onA.refresh(refreshed.refresh_token ?? tokens.refresh_token!);
    expect(again.claims()).toMatchObject({ sub: member.id, email: member.email });

    // The consent given through one is remembered by the other.
    const second = await onA.signIn(new Browser(), member.token);
    expect(second.prompts).toEqual(['login']);
  });
});
