import { expect, test, type Page } from '@playwright/test';
import { inviteCodeSource, signUpVerified, turnOnTwoStep, type Member } from './support/api';
import { checkScreen } from './support/checks';
import { e2eEnv } from './support/env';
import { control, expectHomeScreen, expectLoginScreen, fillLogin } from './support/ui';
import { totpCode } from './support/totp';

/**
 * Two-step sign-in, through the browser against the real server: the login screen's second step
 * (a code from the authenticator app, or a recovery code, each once). The members come from the
 * settings server's initial user; none of this needs a database of its own.
 */

const server = e2eEnv().servers.settings;
const ORIGIN = server.url;
test.use({ baseURL: ORIGIN });

const initial: Member = (() => {
  if (!server.initial) throw new Error('The global setup did not create the initial user');
  return server.initial;
})();
const spareCode = inviteCodeSource(ORIGIN, initial);

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
  await page.getByRole('button', { name: 'Sign In' }).click();
  await expect(secondStepHeading(page)).toBeFocused();
}

async function enterCode(page: Page, code: string): Promise<void> {
  await page.getByLabel('Authentication Code', { exact: true }).fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
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
  await page.getByRole('button', { name: 'Sign In' }).click();
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
