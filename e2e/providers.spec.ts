import { expect, test } from '@playwright/test';
import { serverWithInitial, signUpVerified } from './support/api';
import { waitForMail } from './support/mail';
import { PROVIDER_NAME } from './support/oidc';
import { newProviderLogin, throughProviderPopup } from './support/provider-popup';
import { control, expectHomeScreen, expectLoginScreen, logInThroughUi } from './support/ui';

/**
 * Sign-in with a provider, in the browser, with the SDK's own popup flow against a real OpenID
 * provider on this machine (its development login page takes any login and password; a login
 * `x` has the verified email `x@example.com`): join with an invite code, sign in again, and
 * connect and disconnect a provider on Settings.
 */

const { origin: ORIGIN, spareCode } = serverWithInitial('providers');
test.use({ baseURL: ORIGIN });

const button = `Continue with ${PROVIDER_NAME}`;

const newLogin = newProviderLogin;

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
