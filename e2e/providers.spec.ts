import { expect, test, type Page } from '@playwright/test';
import { inviteCodeSource, signUpVerified, type Member } from './support/api';
import { e2eEnv } from './support/env';
import { waitForMail } from './support/mail';
import { PROVIDER_NAME } from './support/oidc';
import { control, expectHomeScreen, expectLoginScreen, logInThroughUi } from './support/ui';

/**
 * Sign-in with a provider, in the browser, with the SDK's own popup flow against a real OpenID
 * provider on this machine (its development login page takes any login and password; a login
 * `x` has the verified email `x@example.com`): join with an invite code, sign in again, and
 * connect and disconnect a provider on Settings.
 */

const server = e2eEnv().servers.providers;
const ORIGIN = server.url;
test.use({ baseURL: ORIGIN });
// Each test goes through the provider's popup once or twice: room on a busy machine.
test.describe.configure({ timeout: 180_000 });

const initial: Member = (() => {
  if (!server.initial) throw new Error('The global setup did not create the initial user');
  return server.initial;
})();
const spareCode = inviteCodeSource(ORIGIN, initial);
const button = `Continue with ${PROVIDER_NAME}`;

function newLogin(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

/** Clicks `trigger`, then signs in as `login` on the provider's page in the popup it opens. */
async function throughProviderPopup(page: Page, trigger: () => Promise<void>, login: string) {
  const popupOpened = page.waitForEvent('popup');
  await trigger();
  const popup = await popupOpened;
  const loginField = popup.locator('input[name="login"]');
  // A provider session from earlier in this browser may skip its login page.
  const shown = await loginField
    .waitFor({ timeout: 15_000 })
    .then(() => true)
    .catch(() => false);
  if (shown) {
    await loginField.fill(login);
    await popup.locator('input[name="password"]').fill('any password');
    await popup.getByRole('button', { name: 'Sign-in' }).click();
    // Known defect (issue 12): after the provider's own login page, Chromium keeps the popup open
    // on the redirect page's "Auth completed." text instead of letting it close; the member closes
    // it by hand. The sign-in itself has happened by then (the caller checks the app's screen).
    const closed = popup.waitForEvent('close', { timeout: 30_000 });
    const completed = popup
      .getByText('Auth completed.')
      .waitFor({ timeout: 30_000 })
      .catch(() => {});
    await Promise.race([closed, completed]);
    if (!popup.isClosed()) await popup.close();
    await closed.catch(() => {});
    return;
  }
  await popup.waitForEvent('close', { timeout: 30_000 });
}

test('sign up with the provider and an invite code, then sign in again with it', async ({
  page,
}) => {
  const login = newLogin('joiner');
  const code = await spareCode();

  await page.goto('/signup');
  // Without an invite code the provider is not even asked.
  await control(page, button).click();
  await expect(page.getByText('Invite code is required')).toBeVisible();
  await expect(page.getByLabel('Invite Code')).toBeFocused();

  await page.getByLabel('Invite Code').fill(code);
  await throughProviderPopup(page, () => control(page, button).click(), login);
  await expectHomeScreen(page);

  await control(page, 'Log Out').click();
  await expectLoginScreen(page);

  await throughProviderPopup(page, () => control(page, button).click(), login);
  await expectHomeScreen(page);
});

test('connect and disconnect a provider on Settings; never the last way in', async ({ page }) => {
  const member = await signUpVerified(ORIGIN, await spareCode(), 'connector');
  await logInThroughUi(page, member.email, member.password);
  await page.goto('/settings');
  const card = page.getByRole('region', { name: 'Connected Accounts' });
  await expect(card).toContainText('Not connected');

  await throughProviderPopup(page, () => control(card, 'Connect').click(), newLogin('connected'));
  await expect(card.getByText(`${PROVIDER_NAME} connected.`)).toBeVisible();
  await expect(card).toContainText('Connected ');
  await waitForMail(member.email, `${PROVIDER_NAME} was connected to your Gatehouse account`);

  await control(card, 'Disconnect').click();
  await expect(card.getByText(`${PROVIDER_NAME} disconnected.`)).toBeVisible();
  await expect(card).toContainText('Not connected');
});

test('a member who joined with the provider cannot disconnect their only way in', async ({
  page,
}) => {
  const login = newLogin('only');
  await page.goto(`/signup?code=${encodeURIComponent(await spareCode())}`);
  await throughProviderPopup(page, () => control(page, button).click(), login);
  await expectHomeScreen(page);
  await page.goto('/settings');
  const card = page.getByRole('region', { name: 'Connected Accounts' });
  await expect(card).toContainText('Your only way to sign in');
  await expect(control(card, 'Disconnect')).toBeDisabled();
});
