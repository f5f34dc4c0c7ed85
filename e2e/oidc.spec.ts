import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { TestApp } from '../server/test/support/oidc-app';
import { startServerProcess } from '../test-harness/server-process.js';
import { freePort } from '../test-harness/ports.js';
import { logIn, type Member } from './support/api';
import { de } from './support/catalogue';
import { checkScreen, expectScreenTitle } from './support/checks';
import { expectGerman } from './support/german';
import { signUpWithPrintedMail } from './support/printed-mail';
import { control, expectLoginScreen, fillLogin } from './support/ui';

/**
 * Gatehouse as an OpenID provider, in the browser: an app (openid-client in this process, its
 * callback answered by the test) sends a guest to Gatehouse, who signs in on Gatehouse's login
 * screen, allows the app on the consent screen and lands back at the app with a code the app
 * exchanges for tokens; the next sign-in skips the question; Settings → Connected Apps stops the
 * sharing (the app asks again). And the gate: a guest sent to /gate with an address that has a
 * query string signs in and comes back to that very address.
 *
 * Its own server (no mail server: mail is printed), with a gate for wiki.example.org.
 */

const GATED = 'https://wiki.example.org';
const APP_NAME = 'Team Wiki';
const MEMBER_NAME = 'Zoë Ålund';

let server: { url: string; stop(): Promise<unknown>; output(): string };
let work: string;
let member: Member;
/** The member's token (the initial user: an operator, who registers apps). */
let token: string;
let app: TestApp;
let appBase: string;
/** The app's own pages (its callback): a small web server here, as the app's would be. */
let appPages: http.Server;

const html = (title: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1></main></body></html>`;

test.beforeAll(async () => {
  appPages = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(html(APP_NAME)),
  );
  await new Promise<void>((resolve) => appPages.listen(0, '127.0.0.1', resolve));
  appBase = `http://127.0.0.1:${(appPages.address() as AddressInfo).port}/app`;
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'gatehouse-e2e-oidc-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = await startServerProcess({
    nodeArgs: ['--enable-source-maps'],
    port,
    inheritEnv: true,
    env: {
      APP_URL: url,
      DATA_DIR: path.join(work, 'data'),
      DATABASE_URL: '',
      REDIS_URL: '',
      SMTP_URL: '',
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      GATE_COOKIE_DOMAIN: 'example.org',
      GATE_HOSTS: 'wiki.example.org',
    },
    readyOutput: /(https?:\/\/[^\s"]+\/signup\?code=[^\s"]+)/,
    timeoutMs: 90_000,
    killAfterMs: 10_000,
    name: 'The oidc server',
    outputTail: 4000,
    logFile: path.join(work, 'oidc-server.log'),
  });
  server = { url, stop: () => proc.stop(), output: () => proc.output() };
  const code = new URL(proc.match?.[1] ?? '').searchParams.get('code') ?? '';
  member = await signUpWithPrintedMail(url, code, server.output);
  token = await logIn(url, member);
  const named = await fetch(`${url}/api/collections/users/records/${member.id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', authorization: token },
    body: JSON.stringify({ name: MEMBER_NAME }),
  });
  expect(named.status, await named.text()).toBe(200);

  app = await registerApp(APP_NAME);
});

/** The operator registers an app (the operators' API; the console's Apps screen does the same). */
async function registerApp(name: string): Promise<TestApp> {
  const res = await fetch(`${server.url}/api/admin/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: token },
    body: JSON.stringify({
      name,
      redirectUris: [`${appBase}/callback`],
      type: 'confidential',
      group: 'members',
    }),
  });
  const body = (await res.json()) as { app: { id: string }; secret: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  const registered = new TestApp(server.url, body.app.id, body.secret, appBase);
  await registered.discover();
  return registered;
}

test.afterAll(async () => {
  await server?.stop();
  await new Promise((resolve) => appPages?.close(resolve));
  if (!process.env.E2E_KEEP && work) await fs.rm(work, { recursive: true, force: true });
});

/** The gated wiki: answered here, as it would. */
async function answerApps(page: Page): Promise<void> {
  await page.route(`${GATED}/**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: html('Wiki') }),
  );
}

/** Which steps Gatehouse's screens were asked about (login, consent), in order. */
function promptsSeen(page: Page): string[] {
  const seen: string[] = [];
  page.on('response', (res) => {
    if (!/\/api\/oidc\/interactions\/[^/]+\/details$/.test(new URL(res.url()).pathname)) return;
    void res
      .json()
      .then((b: { prompt?: string }) => b.prompt && seen.push(b.prompt))
      .catch(() => undefined);
  });
  return seen;
}

async function atCallback(page: Page, to: TestApp = app): Promise<URL> {
  await page.waitForURL((u) => u.href.startsWith(to.redirectUri));
  return new URL(page.url());
}

test('a guest signs in to an app on Gatehouse, allows it once, and stops sharing in Settings', async ({
  page,
}) => {
  await answerApps(page);
  const first = await app.request();
  await page.goto(first.url.href);

  // A guest: asked to sign in, told membership is by invitation.
  await expect(
    page.getByRole('heading', { level: 1, name: `Sign in to continue to ${APP_NAME}` }),
  ).toBeVisible();
  await expect(page.getByText('Membership is by invitation')).toBeVisible();
  await expectScreenTitle(page, 'Sign In to an App · Gatehouse');
  await checkScreen(page, 'an app sign-in, a guest');
  await control(page, 'Sign In').click();

  await expectLoginScreen(page);
  await fillLogin(page, member.email, member.password);
  // By keyboard: Enter in the password field signs in.
  await page.getByLabel('Password', { exact: true }).press('Enter');

  // Back on the app's sign-in: the consent question.
  await expect(page.getByRole('heading', { level: 1, name: `Allow ${APP_NAME}?` })).toBeVisible();
  await expect(page.getByText(`${APP_NAME} will know your name and email.`)).toBeVisible();
  await expectScreenTitle(page, `Allow ${APP_NAME} · Gatehouse`);
  await checkScreen(page, 'the consent screen');
  const allow = control(page, 'Allow');
  await allow.focus();
  await page.keyboard.press('Enter');

  const callback = await atCallback(page);
  expect(callback.searchParams.get('code')).toBeTruthy();
  const tokens = await app.tokens(callback, first);
  const claims = tokens.claims()!;
  expect(claims.email).toBe(member.email);
  expect(claims.name).toBe(MEMBER_NAME);
  expect(claims.groups).toEqual(expect.arrayContaining(['members']));

  // The second time: remembered, no question.
  const seen = promptsSeen(page);
  const second = await app.request();
  await page.goto(second.url.href);
  const again = await atCallback(page);
  expect((await app.tokens(again, second)).claims()!.email).toBe(member.email);
  expect(seen).not.toContain('consent');

  // Settings → Connected Apps lists it; Stop Sharing ends it.
  await page.goto(`${server.url}/settings`);
  const card = page.getByRole('region', { name: 'Connected Apps' });
  await expect(card.getByText(APP_NAME, { exact: true })).toBeVisible();
  await checkScreen(page, 'Settings with a connected app');
  await control(card, 'Stop Sharing').click();
  await expect(card.getByText(`${APP_NAME} no longer knows your name and email.`)).toBeVisible();

  // The next sign-in asks again.
  const third = await app.request();
  await page.goto(third.url.href);
  await expect(page.getByRole('heading', { level: 1, name: `Allow ${APP_NAME}?` })).toBeVisible();
  await control(page, 'Cancel').click();
  const cancelled = await atCallback(page);
  expect(cancelled.searchParams.get('error')).toBe('access_denied');
});

test('the gate: a guest signs in and comes back to the address, query string and all', async ({
  page,
}) => {
  await answerApps(page);
  // As nginx writes it: the address as it is, not encoded.
  const target = `${GATED}/docs/page?tab=history&lang=en#top`.replace('#top', '');
  await page.goto(`${server.url}/gate?redirect=${target}`);
  await expectLoginScreen(page);
  await fillLogin(page, member.email, member.password);
  await control(page, 'Sign In').click();
  await page.waitForURL((u) => u.origin === GATED);
  expect(page.url()).toBe(target);

  // Encoded once (a proxy that encodes it): the same address.
  await page.goto(`${server.url}/gate?redirect=${encodeURIComponent(`${GATED}/a?b=1&c=2`)}`);
  await page.waitForURL((u) => u.origin === GATED);
  expect(page.url()).toBe(`${GATED}/a?b=1&c=2`);

  // An address the gate does not protect: said so, nowhere else to go.
  await page.goto(`${server.url}/gate?redirect=https://elsewhere.example.com/?x=1`);
  await expect(page.getByRole('heading', { level: 1, name: 'You Cannot Go There' })).toBeVisible();
  await checkScreen(page, 'the gate refusing an address');
});

test.describe('in German (the browser asks for de-DE)', () => {
  test.use({ locale: 'de-DE' });

  test("an app's sign-in, its consent question and the gate's refusal", async ({ page }) => {
    test.setTimeout(180_000);
    const name = 'Forum';
    const forum = await registerApp(name);
    const request = await forum.request();
    await page.goto(request.url.href);
    await expect(
      page.getByRole('heading', {
        level: 1,
        name: de('Sign in to continue to {app}', { app: name }),
      }),
    ).toBeVisible();
    await expectGerman(page, 'an app sign-in, a guest');

    await control(page, de('Sign In')).click();
    await page.getByLabel(de('Email'), { exact: true }).fill(member.email);
    await page.getByLabel(de('Password'), { exact: true }).fill(member.password);
    await page.getByLabel(de('Password'), { exact: true }).press('Enter');
    await expect(
      page.getByRole('heading', { level: 1, name: de('Allow {app}?', { app: name }) }),
    ).toBeVisible();
    await expectGerman(page, 'the consent screen');
    await control(page, de('Allow')).click();
    const callback = await atCallback(page, forum);
    expect((await forum.tokens(callback, request)).claims()!.email).toBe(member.email);

    await page.goto(`${server.url}/gate?redirect=https://elsewhere.example.com/?x=1`);
    await expect(
      page.getByRole('heading', { level: 1, name: de('You Cannot Go There') }),
    ).toBeVisible();
    await expectGerman(page, 'the gate refusing an address');
  });
});
