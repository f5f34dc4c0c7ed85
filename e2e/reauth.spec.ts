import { expect, test, type Download, type Page } from '@playwright/test';
import {
  type Member,
  serverWithInitial,
  signUpVerified,
  logIn,
  turnOnTwoStep,
} from './support/api';
import { checkScreen } from './support/checks';
import { PROVIDER_NAME } from './support/oidc';
import { throughProviderPopup, newProviderLogin } from './support/provider-popup';
import { ageSessions, CONFIRM_DIALOG } from './support/reauth';
import { totpCode } from './support/totp';
import {
  enterSecondStepCode,
  control,
  expectHomeScreen,
  fillLogin,
  logInThroughUi,
  openConsole,
  openConsoleMember,
} from './support/ui';

/**
 * "Confirm it's you", in the browser against the real server: a member whose session is older
 * than REAUTH_MINUTES (moved an hour back in the server's database, support/reauth.ts) starts a
 * sensitive action on Settings; the dialog asks for a proof they have (the password, a code from
 * the authenticator app, a passkey through Chromium's virtual authenticator, or signing in with
 * their provider again), and the action then goes on by itself. Cancel changes nothing.
 *
 * The reauth server is addressed as localhost (a passkey's RP id); the provider journeys use the
 * providers server, which has the test OpenID provider.
 */

const reauth = serverWithInitial('reauth');
test.use({ baseURL: reauth.origin });

async function newMember(who: string): Promise<Member> {
  return signUpVerified(reauth.origin, await reauth.spareCode(), who);
}

function dialog(page: Page) {
  return page.getByRole('dialog', { name: CONFIRM_DIALOG });
}

function card(page: Page, name: string) {
  return page.getByRole('region', { name });
}

async function openSettings(page: Page): Promise<void> {
  await page.goto('/settings');
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();
}

/** The signed-in member's id, as this browser stores its session. */
async function signedInId(page: Page): Promise<string> {
  return page.evaluate(() => {
    const raw = window.localStorage.getItem('pocketbase_auth');
    return raw ? (JSON.parse(raw) as { record: { id: string } }).record.id : '';
  });
}

/** Download My Data, with the export saved once whatever asks in between is done. */
async function downloadMyData(page: Page, between: () => Promise<void>): Promise<Download> {
  const downloading = page.waitForEvent('download');
  await card(page, 'Your Data').getByRole('button', { name: 'Download My Data' }).click();
  await between();
  return downloading;
}

/** Whether focus is inside the dialog (or nowhere in the page, between the browser's own parts). */
function focusInDialog(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return !el || el === document.body || el.closest('dialog[open]') !== null;
  });
}

test('the password: Cancel changes nothing; then Sign Out All Other Devices and Download My Data go on', async ({
  page,
}) => {
  // The dialog is checked with axe in four pairings.
  test.setTimeout(120_000);
  const member = await newMember('stale');
  // Another device: a session made through the API.
  await logIn(reauth.origin, member);
  await logInThroughUi(page, member.email, member.password);
  await openSettings(page);
  const devices = card(page, 'Signed-In Devices');
  await expect(devices.getByRole('listitem')).toHaveCount(2);
  ageSessions(reauth.server, member.id);

  // The action asks; the dialog takes focus in its password field and keeps it inside.
  const endOthers = devices.getByRole('button', { name: 'Sign Out All Other Devices' });
  await endOthers.click();
  const box = dialog(page);
  await expect(box).toBeVisible();
  await expect(box).toContainText(
    "For your security, enter your password to continue. You won't be asked again for a few minutes.",
  );
  const password = box.getByLabel('Password', { exact: true });
  await expect(password).toBeFocused();
  await expect(password).toHaveAttribute('autocomplete', 'current-password');
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press('Tab');
    expect(await focusInDialog(page)).toBe(true);
  }
  await checkScreen(page, "Confirm it's you", { every: true });

  // Escape: nothing changed, a quiet note, focus back on the button.
  await page.keyboard.press('Escape');
  await expect(box).toBeHidden();
  await expect(devices.getByText('Cancelled. Nothing was changed.')).toBeVisible();
  await expect(page.getByText("Confirm it's you to continue.")).toHaveCount(0);
  await expect(endOthers).toBeFocused();
  await expect(devices.getByRole('listitem')).toHaveCount(2);

  // Again: a wrong password is said in plain words, then the right one lets it go on.
  await endOthers.click();
  await expect(password).toBeFocused();
  await password.fill('not my password');
  await box.getByRole('button', { name: 'Confirm' }).click();
  await expect(box.getByText("That password isn't right.")).toBeVisible();
  await expect(box.getByText('Missing or invalid auth record password.')).toHaveCount(0);
  await checkScreen(page, "Confirm it's you, wrong password");
  await password.fill(member.password);
  await box.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('All other devices have been signed out.')).toBeVisible();
  await expect(box).toBeHidden();
  await expect(devices.getByRole('listitem')).toHaveCount(1);

  // Fresh now: the export does not ask.
  const fresh = await downloadMyData(page, async () => {});
  expect(fresh.suggestedFilename()).toBe(`gatehouse-export-${member.id}.json`);
  await expect(box).toBeHidden();

  // Stale again: the export asks, and the file comes once the password is given.
  ageSessions(reauth.server, member.id);
  const download = await downloadMyData(page, async () => {
    await expect(password).toBeFocused();
    await password.fill(member.password);
    await password.press('Enter');
  });
  expect(download.suggestedFilename()).toBe(`gatehouse-export-${member.id}.json`);
  await expect(box).toBeHidden();
});

test('two-step sign-in on: a code from the authenticator app confirms', async ({ page }) => {
  test.setTimeout(90_000);
  const member = await newMember('twostep');
  const { secret, recoveryCodes } = await turnOnTwoStep(reauth.origin, member);
  // Signed in with a recovery code, so the app's next code is still unused.
  await page.goto('/');
  await fillLogin(page, member.email, member.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await enterSecondStepCode(page, recoveryCodes[0] ?? '');
  await expectHomeScreen(page);
  await openSettings(page);
  ageSessions(reauth.server, member.id);

  const box = dialog(page);
  const download = await downloadMyData(page, async () => {
    await expect(box.getByLabel('Password', { exact: true })).toBeFocused();
    await box
      .getByRole('button', { name: 'Use a code from your authenticator app or a recovery code' })
      .click();
    const code = box.getByLabel('Authentication Code', { exact: true });
    await expect(code).toBeFocused();
    await expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    await checkScreen(page, "Confirm it's you, code");
    await code.fill('000000' === totpCode(secret, 1) ? '111111' : '000000');
    await box.getByRole('button', { name: 'Confirm' }).click();
    await expect(box.getByText("That code isn't right or has expired.")).toBeVisible();
    await code.fill(totpCode(secret, 1));
    await box.getByRole('button', { name: 'Confirm' }).click();
  });
  expect(download.suggestedFilename()).toBe(`gatehouse-export-${member.id}.json`);
  await expect(box).toBeHidden();
});

test("a passkey confirms through the browser's prompt", async ({ page }) => {
  test.setTimeout(90_000);
  // A platform authenticator whose fingerprint is always right (as in passkeys.spec.ts).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  const member = await newMember('passkey');
  await logInThroughUi(page, member.email, member.password);
  await openSettings(page);
  // Right after sign-in the session is fresh: adding the passkey does not ask.
  const passkeys = card(page, 'Passkeys');
  await passkeys.getByRole('button', { name: 'Add a Passkey' }).click();
  await expect(passkeys.getByText(/^Passkey added as ".+"\./)).toBeVisible();
  await expect(dialog(page)).toBeHidden();
  ageSessions(reauth.server, member.id);

  const box = dialog(page);
  const download = await downloadMyData(page, async () => {
    // The password is offered first; the passkey beside it.
    await expect(box.getByLabel('Password', { exact: true })).toBeFocused();
    await checkScreen(page, "Confirm it's you, with a passkey");
    await box.getByRole('button', { name: 'Use a passkey' }).click();
  });
  expect(download.suggestedFilename()).toBe(`gatehouse-export-${member.id}.json`);
  await expect(box).toBeHidden();
});

test("an operator's action on a member asks too, after the console's own question", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const member = await newMember('target');
  const { initial } = reauth;
  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleMember(page, member.email);
  ageSessions(reauth.server, initial.id);

  await card(page, 'Actions').getByRole('button', { name: 'Disable', exact: true }).click();
  const question = page.getByRole('dialog', { name: `Disable ${member.email}?` });
  await question.getByRole('button', { name: 'Yes, Disable', exact: true }).click();
  const box = dialog(page);
  const password = box.getByLabel('Password', { exact: true });
  await expect(password).toBeFocused();
  await password.fill(initial.password);
  await box.getByRole('button', { name: 'Confirm' }).click();
  await expect(
    page.getByText(`${member.email} has been disabled and signed out everywhere.`),
  ).toBeVisible();
  await expect(card(page, 'Details').getByText('Disabled', { exact: true })).toBeVisible();
  await expect(box).toBeHidden();
});

test.describe('with a provider', () => {
  const providers = serverWithInitial('providers');
  test.use({ baseURL: providers.origin });

  test('a member whose only way in is the provider signs in with it again', async ({ page }) => {
    test.setTimeout(90_000);
    const login = newProviderLogin('reauth-only');
    await page.goto(`/signup?code=${encodeURIComponent(await providers.spareCode())}`);
    const button = `Continue with ${PROVIDER_NAME}`;
    await throughProviderPopup(page, () => control(page, button).click(), login);
    await expectHomeScreen(page);
    await openSettings(page);
    const id = await signedInId(page);
    ageSessions(providers.server, id);

    const box = dialog(page);
    const download = await downloadMyData(page, async () => {
      await expect(box.getByRole('button', { name: button })).toBeVisible();
      await expect(box.getByLabel('Password', { exact: true })).toHaveCount(0);
      await expect(box).toContainText(`sign in with ${PROVIDER_NAME} again to continue`);
      await checkScreen(page, "Confirm it's you, with a provider");
      await throughProviderPopup(
        page,
        () => box.getByRole('button', { name: button }).click(),
        login,
      );
    });
    expect(download.suggestedFilename()).toBe(`gatehouse-export-${id}.json`);
    await expect(box).toBeHidden();
  });

  test('connecting a provider asks first, then the provider flow runs again', async ({ page }) => {
    test.setTimeout(90_000);
    const member = await signUpVerified(providers.origin, await providers.spareCode(), 'recon');
    await logInThroughUi(page, member.email, member.password);
    await openSettings(page);
    const connected = card(page, 'Connected Accounts');
    await expect(connected).toContainText('Not connected');
    ageSessions(providers.server, member.id);

    const login = newProviderLogin('reauth-connect');
    const box = dialog(page);
    // The provider's answer is refused for a confirmation: the dialog, then the flow again (the
    // provider remembers this browser, so its window closes by itself).
    await throughProviderPopup(page, () => control(connected, 'Connect').click(), login);
    await expect(box).toBeVisible();
    await box.getByLabel('Password', { exact: true }).fill(member.password);
    const again = page.waitForEvent('popup');
    await box.getByRole('button', { name: 'Confirm' }).click();
    const popup = await again;
    await expect.poll(() => popup.isClosed(), { timeout: 30_000 }).toBe(true);
    await expect(connected.getByText(`${PROVIDER_NAME} connected.`)).toBeVisible();
    await expect(box).toBeHidden();
  });
});
