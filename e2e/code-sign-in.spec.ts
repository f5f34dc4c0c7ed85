import { expect, test, type Page } from '@playwright/test';
import { type Member, serverWithInitial, signUpVerified, turnOnTwoStep } from './support/api';
import { checkScreen } from './support/checks';
import { SIGN_IN_CODE_SUBJECT, signInCodeIn, waitForMail } from './support/mail';
import { totpCode } from './support/totp';
import { control, digitFields, expectHomeScreen, expectLoginScreen } from './support/ui';

/**
 * Sign-in with a code sent by email, through the browser against the real server and mail: the
 * code pasted whole and typed digit by digit (each signs in by itself once whole), a wrong code
 * first, the way there by keyboard; and with two-step sign-in on, the authenticator step after it,
 * its code in the same digit fields. Runs on the settings server with members of its own.
 */

const { origin: ORIGIN, spareCode } = serverWithInitial('settings');
test.use({ baseURL: ORIGIN });

async function newMember(who: string): Promise<Member> {
  return signUpVerified(ORIGIN, await spareCode(), who);
}

function codeScreenHeading(page: Page) {
  return page.getByRole('heading', { level: 1, name: 'Check your email' });
}

/** Login → the email typed → "Email me a sign-in code", reached with Tab from the password. */
async function askForCode(page: Page, email: string): Promise<void> {
  await page.goto('/');
  await expectLoginScreen(page);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).focus();
  // Password → Forgot password? → Sign In → Email me a sign-in code.
  for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Email me a sign-in code' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(codeScreenHeading(page)).toBeFocused();
  await expect(page.getByText(`If ${email} has an account`)).toBeVisible();
}

test('a code sent by email signs in: a wrong one first, then pasted whole; another time typed digit by digit', async ({
  page,
  context,
}) => {
  test.setTimeout(90_000);
  const member = await newMember('code');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });

  await askForCode(page, member.email);
  const fields = digitFields(page, 'Sign-in code');
  await expect(fields).toHaveCount(8);
  await expect(fields.first()).toHaveAttribute('autocomplete', 'one-time-code');
  await expect(page.getByRole('button', { name: /^Send a new code in 0:\d\d$/ })).toBeDisabled();
  await checkScreen(page, 'Check your email (the code)', { every: true });
  const code = signInCodeIn(await waitForMail(member.email, SIGN_IN_CODE_SUBJECT));

  // A wrong code: said in words, the fields emptied, the first one focused for another try.
  const wrong = code === '00000000' ? '11111111' : '00000000';
  await fields.first().click();
  await page.keyboard.type(wrong);
  await expect(page.getByText("That code isn't right or has expired.")).toBeVisible();
  await expect(fields.first()).toBeFocused();
  await expect(fields.first()).toHaveValue('');
  await checkScreen(page, 'Check your email, wrong code');

  // The right one pasted whole signs in by itself.
  await page.evaluate(
    (text) => navigator.clipboard.writeText(`${text.slice(0, 4)} ${text.slice(4)}`),
    code,
  );
  await page.keyboard.press('ControlOrMeta+V');
  await expectHomeScreen(page);
  await control(page, 'Log Out').click();
  await expectLoginScreen(page);

  // Another sign-in: a new code, typed digit by digit (Backspace goes back a field).
  await askForCode(page, member.email);
  const next = signInCodeIn(await waitForMail(member.email, SIGN_IN_CODE_SUBJECT, { nth: 2 }));
  await fields.first().click();
  await page.keyboard.type(next.slice(0, 5));
  await expect(fields.nth(5)).toBeFocused();
  await page.keyboard.press('Backspace');
  await expect(fields.nth(4)).toBeFocused();
  await expect(fields.nth(4)).toHaveValue('');
  await page.keyboard.type(next.slice(4));
  await expectHomeScreen(page);
});

test('with two-step sign-in on, the code leads to the authenticator step, whose code goes in its digit fields', async ({
  page,
}) => {
  test.setTimeout(90_000);
  const member = await newMember('code-2fa');
  const { secret } = await turnOnTwoStep(ORIGIN, member);

  await askForCode(page, member.email);
  const code = signInCodeIn(await waitForMail(member.email, SIGN_IN_CODE_SUBJECT));
  await digitFields(page, 'Sign-in code').first().fill(code);

  const heading = page.getByRole('heading', { level: 1, name: 'Two-Step Verification' });
  await expect(heading).toBeFocused();
  const app = digitFields(page, 'Authentication Code');
  await expect(app).toHaveCount(6);
  await expect(app.first()).toHaveAttribute('autocomplete', 'one-time-code');
  await checkScreen(page, 'Two-Step Verification, digit fields', { every: true });
  // The app's next code (the current one turned two-step on), typed: it submits itself.
  await app.first().click();
  await page.keyboard.type(totpCode(secret, 1));
  await expectHomeScreen(page);
});
