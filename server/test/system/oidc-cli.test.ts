import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsxCli } from '../support/cli.js';
import { Browser, TestApp } from '../support/oidc-app.js';
import { freePort } from '../support/ports.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * `cli oidc …`: an app registered from a shell signs a member in through the running server; the
 * list shows it; rotate-keys adds a key that signs after an overlap; a removed app signs no one in.
 */
describe('cli oidc', () => {
  let t: TestServer;
  const env = () => ({ DATA_DIR: t.dataDir, ENV_FILE: '', APP_URL: t.env.APP_URL! });

  beforeAll(async () => {
    const port = await freePort();
    t = await startTestServer({
      db: 'sqlite',
      env: { PORT: String(port), APP_URL: `http://127.0.0.1:${port}` },
    });
  });
  afterAll(() => t?.close());

  it('adds, lists and removes an app; rotate-keys adds a key', async () => {
    const member = await t.initialUser();
    const added = await tsxCli(
      ['oidc', 'add-app', '--name', 'Forgejo', '--redirect-uri', 'http://127.0.0.1:9/app/callback'],
      env(),
    );
    expect(added.code, added.stderr).toBe(0);
    const id = /Client ID: (\S+)/.exec(added.stdout)![1]!;
    const secret = /Client secret \(shown once\): (\S+)/.exec(added.stdout)![1]!;
    expect(added.stdout).toContain(`Issuer: ${t.env.APP_URL}/oidc`);

    const list = await tsxCli(['oidc', 'list-apps'], env());
    expect(list.stdout).toBe(
      `${id}\tForgejo\tconfidential\tmembers\thttp://127.0.0.1:9/app/callback\n`,
    );
    expect(list.stdout).not.toContain(secret);

    const app = new TestApp(t.url, id, secret);
    await app.discover();
    const signIn = await app.signIn(new Browser(), member.token);
    const tokens = await app.tokens(signIn.callback, signIn);
    expect(tokens.claims()!.sub).toBe(member.id);

    const jwks = async () =>
      ((await (await fetch(`${t.url}/oidc/jwks`)).json()) as { keys: unknown[] }).keys;
    expect(await jwks()).toHaveLength(1);
    const rotated = await tsxCli(['oidc', 'rotate-keys'], env());
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(
      /^New signing key \S+: published now, signing in 2 minutes\.\n$/,
    );

    const bad = await tsxCli(
      ['oidc', 'add-app', '--name', 'X', '--redirect-uri', 'http://x.example/cb'],
      env(),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('redirectUris: Must start with https://');

    const removed = await tsxCli(['oidc', 'remove-app', id], env());
    expect(removed.stdout).toBe(`Removed ${id}\n`);
    const again = await tsxCli(['oidc', 'remove-app', id], env());
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('No app has that client id.');
    const res = await new Browser().fetch((await app.request()).url.href);
    expect(res.status).toBe(400);
  }, 120_000);
});
