import { expect, test, type Page } from '@playwright/test';
import { type Member, serverWithInitial, signUpVerified, turnOnTwoStep } from './support/api';
import { checkScreen } from './support/checks';
import {
  control,
  enterSecondStepCode,
  expectHomeScreen,
  expectLoginScreen,
  fillLogin,
} from './support/ui';
import { totpCode } from './support/totp';

/**
 * Two-step sign-in, through the browser against the real server: the login screen's second step
 * (a code from the authenticator app, or a recovery code, each once). The members come from the
 * settings server's initial user; none of this needs a database of its own.
 */

const { origin: ORIGIN, spareCode } = serverWithInitial('settings');
test.use({ baseURL: ORIGIN });

async function newMember(who: string): Promise<Member> {
  return signUpVerified(ORIGIN, await spareCode(), who);
}

function secondStepHeading(page: Page) {
  return page.getByRole('heading', { level: 1, name: 'Two-Step Verification' });
}

/** The first step with a right password: the second step shows, its heading focused. */
async function passwordStep(page: Page, member: Member): Promise<void> {
  await page.goto('/');
  await expectLoginScreen(page);
  await fillLogin(page, member.email, member.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(secondStepHeading(page)).toBeFocused();
}

/** The app's code in the digit fields (they submit themselves), a recovery code in its field. */
async function enterCode(page: Page, code: string): Promise<void> {
  await enterSecondStepCode(page, code);
}

async function logOut(page: Page): Promise<void> {
  await control(page, 'Log Out').click();
  await expectLoginScreen(page);
}

test('login second step: a wrong code, Back, the app code, then a recovery code once', async ({
  page,
}) => {
  const member = await newMember('second');
  const { secret, recoveryCodes } = await turnOnTwoStep(ORIGIN, member);

  await passwordStep(page, member);
  await checkScreen(page, 'Two-Step Verification');
  await enterCode(page, '000000' === totpCode(secret) ? '111111' : '000000');
  await expect(page.getByText('Invalid code. Please try again.')).toBeVisible();
  await checkScreen(page, 'Two-Step Verification, wrong code');

  // Back: the first step again, exactly as it was.
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page.getByRole('heading', { name: 'Welcome back' })).toBeFocused();
  await expect(page.getByLabel('Email', { exact: true })).toHaveValue(member.email);

  // The authenticator app's code (the next step's: the current one turned two-step on).
  await fillLogin(page, member.email, member.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(secondStepHeading(page)).toBeFocused();
  await enterCode(page, totpCode(secret, 1));
  await expectHomeScreen(page);
  await logOut(page);

  // A recovery code works once.
  const [recovery] = recoveryCodes;
  if (!recovery) throw new Error('No recovery code');
  await passwordStep(page, member);
  await enterCode(page, recovery.toUpperCase());
  await expectHomeScreen(page);
  await logOut(page);
  await passwordStep(page, member);
  await enterCode(page, recovery);
  await expect(page.getByText('Invalid code. Please try again.')).toBeVisible();
  await expect(secondStepHeading(page)).toBeVisible();
});

test('Settings → Two-Step Sign-In: turn on with the app, sign in with a code and a recovery code once, turn off', async ({
  page,
}) => {
  // Many screens, each checked with axe twice.
  test.setTimeout(120_000);
  const member = await newMember('twostep');
  await page.goto('/');
  await fillLogin(page, member.email, member.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expectHomeScreen(page);
  await control(page, 'View Profile').click();
  await control(page.getByRole('main'), 'Settings').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();

  const card = page.getByRole('region', { name: 'Two-Step Sign-In' });
  await expect(card.getByText('Two-step sign-in is off.')).toBeVisible();
  await checkScreen(page, 'Two-Step Sign-In, off');

  // Set up: the QR code shows (an image, allowed by the page's CSP) and the key as text.
  await card.getByRole('button', { name: 'Set Up Authenticator App' }).click();
  await expect(
    card.getByRole('heading', { level: 3, name: 'Set Up Authenticator App' }),
  ).toBeFocused();
  const qr = card.getByRole('img', { name: 'QR code to add your account to an authenticator app' });
  await expect(qr).toBeVisible();
  expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(
    true,
  );
  const secret = ((await card.getByLabel('Setup key').textContent()) ?? '').replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await checkScreen(page, 'Two-Step Sign-In, set up');

  await card.getByLabel('Authentication Code', { exact: true }).fill(totpCode(secret));
  await card.getByRole('button', { name: 'Turn On' }).click();
  await expect(card.getByRole('heading', { level: 3, name: 'Your Recovery Codes' })).toBeFocused();
  const codes = await card
    .getByRole('list', { name: 'Recovery codes' })
    .getByRole('listitem')
    .allTextContents();
  expect(codes).toHaveLength(10);
  await checkScreen(page, 'Two-Step Sign-In, recovery codes');
  const download = page.waitForEvent('download');
  await card.getByRole('button', { name: 'Download' }).click();
  expect((await download).suggestedFilename()).toBe('gatehouse-recovery-codes.txt');
  await card.getByRole('button', { name: 'Done' }).click();
  await expect(card.getByText('You have 10 recovery codes left.')).toBeVisible();
  await expect(card.getByRole('list', { name: 'Recovery codes' })).toHaveCount(0);
  await checkScreen(page, 'Two-Step Sign-In, on');

  // Sign out; sign in with the password and the app's code (the next step's).
  await control(page, 'Back to Home').click();
  await logOut(page);
  await passwordStep(page, member);
  await enterCode(page, totpCode(secret, 1));
  await expectHomeScreen(page);
  await logOut(page);

  // A recovery code signs in once; the second time it is refused.
  const recovery = codes[3] ?? '';
  await passwordStep(page, member);
  await enterCode(page, recovery);
  await expectHomeScreen(page);
  await logOut(page);
  await passwordStep(page, member);
  await enterCode(page, recovery);
  await expect(page.getByText('Invalid code. Please try again.')).toBeVisible();

  // With another recovery code: Settings, Turn Off with the password; the password alone then.
  await enterCode(page, codes[4] ?? '');
  await expectHomeScreen(page);
  await page.goto('/settings');
  await expect(card.getByText('You have 8 recovery codes left.')).toBeVisible();
  await card.getByRole('button', { name: 'Turn Off' }).click();
  await expect(
    card.getByRole('heading', { level: 3, name: 'Turn Off Two-Step Sign-In' }),
  ).toBeFocused();
  await card.getByLabel('Password', { exact: true }).fill('not the password');
  await card.getByRole('button', { name: 'Turn Off' }).click();
  await expect(card.getByText('Incorrect password. Please try again.')).toBeVisible();
  await checkScreen(page, 'Two-Step Sign-In, turn off with a wrong password');
  await card.getByLabel('Password', { exact: true }).fill(member.password);
  await card.getByRole('button', { name: 'Turn Off' }).click();
  await expect(card.getByText('Two-step sign-in is off.').first()).toBeVisible();
  await expect(card.getByRole('button', { name: 'Set Up Authenticator App' })).toBeVisible();
  await control(page, 'Back to Home').click();
  await logOut(page);
  await fillLogin(page, member.email, member.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expectHomeScreen(page);
});
