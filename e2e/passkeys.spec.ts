import { expect, test, type Page } from '@playwright/test';
import { type Member, serverWithInitial, signUpVerified, turnOnTwoStep } from './support/api';
import { checkScreen } from './support/checks';
import { waitForMail } from './support/mail';
import { control, expectHomeScreen, expectLoginScreen, logInThroughUi } from './support/ui';

/**
 * Passkeys in Chromium with its virtual authenticator (the DevTools protocol's WebAuthn domain):
 * a member adds one on Settings, renames it, signs in with it (no password typed), sees it used,
 * removes it; a member without one is told so calmly. The server is addressed as localhost, the
 * RP id of its APP_URL (see support/global-setup.ts).
 *
 * The virtual authenticator answers at once, the autofill list's request too: on the login screen
 * it picks its passkey for the member as soon as the screen offers passkeys in the email field's
 * autofill. To press the button instead, a test holds the autofill's options request.
 */

const { origin: ORIGIN, spareCode } = serverWithInitial('passkeys');
test.use({ baseURL: ORIGIN });

async function newMember(who: string): Promise<Member> {
  return signUpVerified(ORIGIN, await spareCode(), who);
}

/**
 * A platform authenticator with user verification that answers at once (a fingerprint that is
 * always right). Returns how many passkeys it holds, at any time.
 */
async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    async credentials() {
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      return credentials;
    },
  };
}

async function openSettings(page: Page): Promise<void> {
  await control(page, 'View Profile').click();
  await control(page.getByRole('main'), 'Settings').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();
}

async function logOut(page: Page): Promise<void> {
  await page.goto('/home');
  await control(page, 'Log Out').click();
  await expectLoginScreen(page);
}

function passkeyButton(page: Page) {
  return page.getByRole('button', { name: 'Sign in with a passkey' });
}

/**
 * Holds the next login screen's first passkey-login options request (its autofill's) for good, as
 * if the member never opened the autofill list; later requests (the button's) go through.
 */
async function ignoreAutofill(page: Page): Promise<void> {
  let seen = 0;
  await page.route(
    (url) => url.pathname === '/api/gatehouse/passkey-login/options',
    (route) => (++seen === 1 ? new Promise<void>(() => undefined) : route.continue()),
  );
}

test('a passkey: add it on Settings, rename it, sign in with it, see it used, remove it', async ({
  page,
}) => {
  // Many screens, each checked with axe twice.
  test.setTimeout(300_000);
  const authenticator = await virtualAuthenticator(page);
  const member = await newMember('passkey');
  await logInThroughUi(page, member.email, member.password);
  await openSettings(page);

  const card = page.getByRole('region', { name: 'Passkeys' });
  await expect(card.getByText('You have no passkeys yet.')).toBeVisible();

  // Add: the browser's prompt (answered by the virtual authenticator), then the new row.
  await card.getByRole('button', { name: 'Add a Passkey' }).click();
  await expect(
    card.getByText(/^Passkey added as ".+"\. You can now sign in with it\.$/),
  ).toBeVisible();
  const rows = card.getByRole('list', { name: 'Your passkeys' }).getByRole('listitem');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('Last used');
  await expect(rows.first()).toContainText('Never');
  const stored = await authenticator.credentials();
  expect(stored).toHaveLength(1);
  expect(stored[0]?.isResidentCredential).toBe(true);
  const mail = await waitForMail(member.email, 'A passkey was added to your Gatehouse account');
  expect(mail.to).toEqual([member.email]);
  await checkScreen(page, 'Passkeys, one');

  // Rename: the field takes focus with the name; Save shows the new one and focus comes back.
  await rows.first().getByRole('button', { name: 'Rename' }).click();
  const nameField = card.getByLabel('Passkey Name', { exact: true });
  await expect(nameField).toBeFocused();
  await nameField.fill('   ');
  await card.getByRole('button', { name: 'Save' }).click();
  await expect(card.getByText('Please enter a name.')).toBeVisible();
  await checkScreen(page, 'Passkeys, rename');
  await nameField.fill('Work laptop');
  await nameField.press('Enter');
  await expect(card.getByText('Passkey renamed to "Work laptop".')).toBeVisible();
  await expect(rows.first()).toContainText('Work laptop');
  await expect(rows.first().getByRole('button', { name: 'Rename' })).toBeFocused();

  // Sign out: the login screen offers the passkey in the email field's autofill; picked (by the
  // virtual authenticator), it signs the member in, no password typed.
  await logOut(page);
  await expectHomeScreen(page);

  // Settings shows it used; then Remove (with its question) takes it away.
  await openSettings(page);
  await expect(rows.first()).toContainText('Work laptop');
  await expect(rows.first()).not.toContainText('Never');
  await rows.first().getByRole('button', { name: 'Remove' }).click();
  await expect(card.locator('p', { hasText: 'Remove this passkey?' })).toBeFocused();
  await checkScreen(page, 'Passkeys, remove');
  await card.getByRole('button', { name: 'Yes, Remove' }).click();
  await expect(card.getByText('Work laptop was removed.')).toBeVisible();
  await expect(card.getByText('You have no passkeys yet.')).toBeVisible();
  await expect(card.getByRole('button', { name: 'Add a Passkey' })).toBeFocused();

  // The authenticator still holds it, but the server no longer takes it, from autofill or the
  // button.
  const refused = page.getByText(
    'This passkey cannot sign you in. It may have been removed from your account. Please sign in with your password.',
  );
  await logOut(page);
  await expect(refused).toBeVisible();
  await passkeyButton(page).click();
  await expect(passkeyButton(page)).toBeEnabled();
  await expect(refused).toBeVisible();
  await expectLoginScreen(page);
});

test('a member without a passkey is told so calmly, and the password still works', async ({
  page,
}) => {
  await virtualAuthenticator(page);
  const member = await newMember('nopasskey');
  await page.goto('/');
  await expectLoginScreen(page);
  await passkeyButton(page).click();
  const message = page.getByText(
    'No passkey was used. If you have not added a passkey to your account yet, sign in with your password.',
  );
  await expect(message).toBeVisible();
  await expect(page.getByRole('status').filter({ has: message })).toHaveCount(1);
  await expect(passkeyButton(page)).toBeEnabled();
  await checkScreen(page, 'Login, no passkey');

  await logInThroughUi(page, member.email, member.password);
});

test('the passkey button signs in alone, with two-step sign-in on, as the server answers', async ({
  page,
}) => {
  await virtualAuthenticator(page);
  const member = await newMember('passkey2fa');
  await logInThroughUi(page, member.email, member.password);
  await openSettings(page);
  const card = page.getByRole('region', { name: 'Passkeys' });
  await card.getByRole('button', { name: 'Add a Passkey' }).click();
  await expect(card.getByRole('list', { name: 'Your passkeys' }).getByRole('listitem')).toHaveCount(
    1,
  );
  await turnOnTwoStep(ORIGIN, member);

  await ignoreAutofill(page);
  await logOut(page);
  await passkeyButton(page).click();
  await expectHomeScreen(page);
});
