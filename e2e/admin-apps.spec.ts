import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { client, TestApp } from '../server/test/support/oidc-app';
import { serverWithInitial, signUpVerified, type Member } from './support/api';
import { checkScreen, expectScreenTitle } from './support/checks';
import { ageSessions, CONFIRM_DIALOG } from './support/reauth';
import {
  control,
  expectLoginScreen,
  fillLogin,
  logInThroughUi,
  openConsole,
  openConsoleSection,
} from './support/ui';

/**
 * Admin → Apps in the browser: an operator registers an app (a return address the server refuses
 * says why under its field), copies its secret from the one time it is shown, edits its return
 * addresses and makes it a new secret; a real relying party (openid-client in this process, its
 * callback a small web server here) signs a member in with that client id and the new secret
 * through Gatehouse's screens (the old secret is refused). Removed (after a question naming
 * it, and "Confirm it's you" once the sign-in is not recent), the app can sign no one in, and
 * what it was given stops working.
 */

const { server, origin: ORIGIN, initial, spareCode } = serverWithInitial('apps');
test.use({ baseURL: ORIGIN });
// Each state is scanned with axe two or four times: room on a busy machine.
test.describe.configure({ timeout: 360_000 });

const APP_NAME = 'Team Wiki';
const REFUSED_ADDRESS = 'Must start with https:// (http:// only for this machine).';

let appPages: http.Server;
let appBase: string;
let member: Member;

const html = (title: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1></main></body></html>`;

test.beforeAll(async () => {
  // The app's own pages (its callback), as the app's server would answer them.
  appPages = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end(html(APP_NAME)),
  );
  await new Promise<void>((resolve) => appPages.listen(0, '127.0.0.1', resolve));
  appBase = `http://127.0.0.1:${(appPages.address() as AddressInfo).port}/app`;
  member = await signUpVerified(ORIGIN, await spareCode(), 'member');
});

test.afterAll(async () => {
  await new Promise((resolve) => appPages?.close(resolve));
});

function appsList(page: Page) {
  return page.getByRole('list', { name: 'Apps' });
}

/** The value shown beside `term` in a card of settings to copy. */
async function shownValue(card: Locator, term: string): Promise<string> {
  const value = card
    .locator('dt', { hasText: term })
    .locator('xpath=following-sibling::dd[1]//code');
  return (await value.textContent()) ?? '';
}

test('an operator registers an app, its secret shown once, edits it; a member signs in to it; removed, it signs no one in', async ({
  page,
  browser,
}) => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleSection(page, 'Apps');
  await expect(page.getByText('No apps yet.', { exact: false })).toBeVisible();
  await checkScreen(page, 'Apps, none yet', { every: true });

  // A return address the server refuses: its words under the field, which takes focus.
  const form = page.getByRole('form', { name: 'Register an App' });
  await form.getByLabel('Name', { exact: true }).fill(APP_NAME);
  const addresses = form.getByLabel('Return addresses', { exact: true });
  await addresses.fill('http://wiki.example.org/oauth/callback');
  await form.getByRole('button', { name: 'Register App' }).click();
  await expect(addresses).toBeFocused();
  await expect(addresses).toHaveAttribute('aria-invalid', 'true');
  await expect(addresses).toHaveAccessibleDescription(new RegExp(`${escape(REFUSED_ADDRESS)}$`));
  await expect(appsList(page)).toHaveCount(0);
  await checkScreen(page, 'Register an App, a refused address');

  // Put right, and registered by keyboard.
  await addresses.fill(`${appBase}/callback`);
  await form.getByRole('radio', { name: /^Confidential/ }).check();
  await form.getByRole('radio', { name: /^Members/ }).check();
  await form.getByRole('button', { name: 'Register App' }).focus();
  await page.keyboard.press('Enter');

  // The secret, this once: the card's heading takes focus; Copy puts it on the clipboard.
  const card = page.getByRole('region', { name: `${APP_NAME} Is Registered` });
  await expect(card.getByRole('heading', { name: `${APP_NAME} Is Registered` })).toBeFocused();
  await expect(card).toContainText('The secret will not be shown again.');
  const clientId = await shownValue(card, 'Client ID');
  const secret = await shownValue(card, 'Client Secret');
  expect(clientId).toMatch(/^[a-z0-9]{24}$/);
  expect(secret.length).toBeGreaterThanOrEqual(32);
  expect(await shownValue(card, 'Issuer')).toBe(`${ORIGIN}/oidc`);
  await card.getByRole('button', { name: 'Copy Client Secret' }).click();
  await expect(card.getByText('Client Secret copied.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await expect(form.getByLabel('Name', { exact: true })).toHaveValue('');
  await checkScreen(page, "Apps, a new app's secret", { every: true });

  // Listed with what the operator chose; Done puts the secret away, and it is never shown again.
  const row = appsList(page).getByRole('listitem').filter({ hasText: APP_NAME });
  await expect(row).toContainText(clientId);
  await expect(row).toContainText(`${appBase}/callback`);
  await expect(row).toContainText('Confidential (has a secret)');
  await expect(row).toContainText('Members');
  await card.getByRole('button', { name: 'Done' }).click();
  await expect(card).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Apps' })).toBeFocused();
  await expect(row).toBeVisible();
  expect(await page.content()).not.toContain(secret);
  await checkScreen(page, 'Apps, one app');

  // Edit: a second return address, through the same checks.
  await row.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: `Edit ${APP_NAME}` });
  await expect(edit.getByLabel('Name', { exact: true })).toBeFocused();
  await edit
    .getByLabel('Return addresses', { exact: true })
    .fill(`${appBase}/callback\n${appBase}/other-callback`);
  await checkScreen(page, 'Apps, editing an app');
  await edit.getByRole('button', { name: 'Save Changes' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: `${APP_NAME} has been saved.` }),
  ).toBeVisible();
  await expect(edit).toHaveCount(0);
  await expect(row).toContainText(`${appBase}/other-callback`);

  // New Secret, after a question naming the app: shown once, the old one stops working.
  await row.getByRole('button', { name: 'New Secret' }).click();
  await page
    .getByRole('dialog', { name: `A new secret for ${APP_NAME}?` })
    .getByRole('button', { name: 'Yes, Make a New Secret' })
    .click();
  const renewed = page.getByRole('region', { name: `A New Secret for ${APP_NAME}` });
  await expect(renewed.getByRole('heading')).toBeFocused();
  const newSecret = await shownValue(renewed, 'Client Secret');
  expect(newSecret).not.toBe(secret);
  await renewed.getByRole('button', { name: 'Done' }).click();

  // A real app signs a member in with that client id and secret, in the member's own browser.
  const app = new TestApp(ORIGIN, clientId, newSecret, appBase);
  await app.discover();
  const memberContext = await browser.newContext({ baseURL: ORIGIN });
  const memberPage = await memberContext.newPage();
  const signIn = await app.request();
  await memberPage.goto(signIn.url.href);
  await expect(
    memberPage.getByRole('heading', { level: 1, name: `Sign in to continue to ${APP_NAME}` }),
  ).toBeVisible();
  await control(memberPage, 'Sign In').click();
  await expectLoginScreen(memberPage);
  await fillLogin(memberPage, member.email, member.password);
  await memberPage.getByLabel('Password', { exact: true }).press('Enter');
  await expect(
    memberPage.getByRole('heading', { level: 1, name: `Allow ${APP_NAME}?` }),
  ).toBeVisible();
  await control(memberPage, 'Allow').click();
  await memberPage.waitForURL((u) => u.href.startsWith(app.redirectUri));
  const callback = new URL(memberPage.url());
  const stale = new TestApp(ORIGIN, clientId, secret, appBase);
  await stale.discover();
  const oldSecret = await stale.tokens(callback, signIn).catch((err: unknown) => err);
  expect((oldSecret as client.ResponseBodyError).error).toBe('invalid_client');
  const tokens = await app.tokens(callback, signIn);
  expect(tokens.claims()).toMatchObject({ email: member.email, groups: ['members'] });

  // Removed, after a question naming it: Cancel first (it changes nothing), then by keyboard.
  const remove = row.getByRole('button', { name: 'Remove' });
  await remove.click();
  const dialog = page.getByRole('dialog', { name: `Remove ${APP_NAME}?` });
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await checkScreen(page, 'Apps, removing an app');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(remove).toBeFocused();
  await page.keyboard.press('Enter');
  // The operator's sign-in is no longer recent: "Confirm it's you" asks first (lib/pb.ts).
  ageSessions(server, initial.id);
  await dialog.getByRole('button', { name: 'Yes, Remove' }).focus();
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('dialog', { name: CONFIRM_DIALOG });
  await expect(confirm.getByLabel('Password', { exact: true })).toBeFocused();
  await page.keyboard.type(initial.password);
  await page.keyboard.press('Enter');
  await expect(
    page
      .getByRole('status')
      .filter({ hasText: `${APP_NAME} has been removed. It can no longer sign anyone in.` }),
  ).toBeVisible();
  await expect(appsList(page)).toHaveCount(0);
  await expect(page.getByText('No apps yet.', { exact: false })).toBeVisible();

  // The app's next sign-in fails at Gatehouse, and what it was given stops working.
  const again = await app.request();
  const refused = await memberPage.goto(again.url.href);
  expect(refused?.status()).toBe(400);
  expect(memberPage.url().startsWith(app.redirectUri)).toBe(false);
  const refresh = await app.refresh(tokens.refresh_token!).catch((err: unknown) => err);
  expect((refresh as client.ResponseBodyError).error).toBe('invalid_client');
  await memberContext.close();
  await expectScreenTitle(page, 'Apps · Gatehouse');
});

/** `text` for a regular expression, its special characters taken as they are. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
