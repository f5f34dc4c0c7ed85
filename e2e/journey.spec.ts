import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import {
  accountRecord,
  changelog,
  newPassword,
  uniqueEmail,
  type ChangelogEntry,
} from './support/api';
import { e2eEnv } from './support/env';
import { linkIn, mailTo, RESET_SUBJECT, VERIFY_SUBJECT, waitForMail } from './support/mail';
import {
  control,
  expectHomeScreen,
  expectLoginScreen,
  fillLogin,
  fillSignUp,
  holdRequests,
  logInThroughUi,
  loginHeading,
  storedTokens,
  viewedEarlierRelease,
} from './support/ui';

/**
 * The whole life of two members, through the browser only, with the mail a real SMTP receiver
 * got: the bootstrap link → sign-up → unverified login → resend → verify from the mailed link →
 * login → banner → What's New → profile, copy and generate → a second member signs up with a
 * copied link → forgot/reset from the mailed link → logout → delete.
 */

const server = e2eEnv().servers.journey;
const ORIGIN = server.url;

test.describe.configure({ mode: 'serial' });

const ada = { email: uniqueEmail('ada'), password: newPassword() };
const ben = { email: uniqueEmail('ben'), password: newPassword(), newPassword: newPassword() };
let releases: ChangelogEntry[];
let adaContext: BrowserContext;
let ada$: Page;
let benContext: BrowserContext;
let ben$: Page;
let copiedLink = '';

test.beforeAll(async ({ browser }) => {
  releases = await changelog(ORIGIN);
  const options = {
    baseURL: ORIGIN,
    permissions: ['clipboard-read', 'clipboard-write'],
    viewport: { width: 1280, height: 800 },
  };
  adaContext = await browser.newContext(options);
  benContext = await browser.newContext(options);
  // Both have seen an earlier release's notes on their browser, so Home has news for them.
  await viewedEarlierRelease(adaContext);
  await viewedEarlierRelease(benContext);
  ada$ = await adaContext.newPage();
  ben$ = await benContext.newPage();
});

test.afterAll(async () => {
  await adaContext?.close();
  await benContext?.close();
});

test('the bootstrap link opens sign-up with the code filled in, and sign-up succeeds', async () => {
  const page = ada$;
  const link = new URL(server.bootstrapLink);
  expect(link.origin, 'the printed link points at APP_URL').toBe(ORIGIN);
  const code = link.searchParams.get('code') ?? '';
  expect(code).not.toBe('');

  await page.goto(server.bootstrapLink);
  await expect(page).toHaveURL((url) => url.pathname === '/signup');
  await expect(page.getByLabel('Invite Code', { exact: true })).toHaveValue(code);
  // The welcome banner shows the code.
  await expect(page.getByText(code, { exact: false }).first()).toBeVisible();
  // No one has joined yet: the first member is setting up the community.
  await expect(page.getByText("Welcome! You're setting up Gatehouse.")).toBeVisible();

  await fillSignUp(page, { email: ada.email, password: ada.password });
  const hold = await holdRequests(page, '/api/collections/users/records');
  await page.getByRole('button', { name: 'Sign Up' }).click();
  await hold.arrived;
  await expect(page.getByRole('button', { name: 'Creating account...' })).toBeVisible();
  await hold.release();

  await expect(page.getByText('Account created successfully')).toBeVisible();
  const createdAt = Date.now();
  await expect(page.getByText(/inbox and spam folder/i)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Back to Login' })).toBeVisible();
  await expect(page.getByText(/\b5\b/).first(), 'the countdown starts at 5 seconds').toBeVisible();

  // After sign-up the app asks for the verification mail.
  const mail = await waitForMail(ada.email, VERIFY_SUBJECT);
  expect(linkIn(mail, `${ORIGIN}/verify-email?token=`)).toBeTruthy();

  // The 5 second countdown ends on the login screen by itself.
  await expect(loginHeading(page)).toBeVisible({ timeout: 10_000 });
  await expectLoginScreen(page);
  const waited = Date.now() - createdAt;
  expect(waited, 'the login screen came after a 5 second countdown').toBeGreaterThan(3_900);
});

test('an unverified login shows Email Not Verified, keeps no session, and resend waits for the mail just sent', async () => {
  const page = ada$;
  await fillLogin(page, ada.email, ada.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page.getByText('Email Not Verified')).toBeVisible();
  await expectLoginScreen(page);
  expect(await storedTokens(page), 'the unverified session was cleared').toBe(0);

  // Sign-up in this browser asked for the mail moments ago: the server would send no other for
  // 2 minutes, so Resend counts down rather than claiming a send.
  await expect(page.getByRole('button', { name: /^Resend in [12]:\d\d$/ })).toBeDisabled();
  await expect(page.getByText('Verification email sent! Check your inbox.')).toHaveCount(0);

  // The session was cleared: the signed-in screens send the visitor back to login.
  await page.goto('/home');
  await expectLoginScreen(page);
  await page.goto('/profile');
  await expectLoginScreen(page);
});

test('the mailed verification link verifies the email and leads to login after 3 seconds', async () => {
  const page = ada$;
  const mails = await mailTo(ada.email, VERIFY_SUBJECT);
  const link = linkIn(
    mails[mails.length - 1] ?? (await waitForMail(ada.email, VERIFY_SUBJECT)),
    `${ORIGIN}/verify-email?token=`,
  );

  const hold = await holdRequests(page, '/api/collections/users/confirm-verification');
  await page.goto(link);
  await hold.arrived;
  await expect(page.getByRole('heading', { name: 'Verifying Email...' })).toBeVisible();
  await hold.release();

  await expect(page.getByRole('heading', { name: 'Email Verified!' })).toBeVisible();
  const verifiedAt = Date.now();
  await expect(page.getByRole('button', { name: 'Go to Login' })).toBeVisible();
  await expect(loginHeading(page)).toBeVisible({ timeout: 8_000 });
  expect(Date.now() - verifiedAt, 'login came after a 3 second countdown').toBeGreaterThan(1_900);
  await expectLoginScreen(page);
});

test('login shows Signing in... and then the home screen', async () => {
  const page = ada$;
  await fillLogin(page, ada.email, ada.password);
  const hold = await holdRequests(page, '/api/collections/users/auth-with-password');
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await hold.arrived;
  await expect(page.getByRole('button', { name: 'Signing in...' })).toBeVisible();
  await hold.release();

  await expectHomeScreen(page);
  for (const name of ['View Profile', "What's New", 'Log Out']) {
    await expect(control(page.getByRole('main'), name)).toBeVisible();
  }
});

test('the New Update banner shows the latest release and stays away once dismissed', async () => {
  const page = ada$;
  const latest = releases[0];
  expect(latest, '/changelog.json holds at least one release').toBeTruthy();
  if (!latest) return;

  const banner = page.getByRole('region', { name: 'New Update' });
  await expect(banner).toBeVisible();
  await expect(banner).toContainText(latest.version);
  await expect(banner).toContainText(latest.title);
  await expect(control(banner, "View What's New")).toBeVisible();

  await banner.getByRole('button', { name: /dismiss|close/i }).click();
  await expect(page.getByText('New Update')).toHaveCount(0);
  await page.reload();
  await expectHomeScreen(page);
  await expect(page.getByText('New Update')).toHaveCount(0);
});

test("What's New lists every release, newest first with the Latest badge", async () => {
  const page = ada$;
  await control(page.getByRole('main'), "What's New").click();
  await expect(page).toHaveURL((url) => url.pathname === '/whats-new');
  await expect(page.getByRole('heading', { name: "What's New", level: 1 })).toBeVisible();
  await expect(page.getByText('Latest features and improvements')).toBeVisible();

  for (const entry of releases) {
    const card = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: entry.title }) });
    await expect(card).toHaveCount(1);
    await expect(card).toContainText(`v${entry.version}`);
    await expect(card).toContainText(entry.summary);
    for (const [list, items] of [
      ['New Features', entry.features],
      ['Improvements', entry.improvements],
      ['Bug Fixes', entry.fixes],
    ] as const) {
      await expect(card.getByText(list, { exact: true })).toHaveCount(items.length > 0 ? 1 : 0);
      for (const item of items) await expect(card.getByText(item, { exact: true })).toBeVisible();
    }
  }
  await expect(page.getByText('Latest', { exact: true })).toHaveCount(1);
  const first = releases[0];
  if (first) {
    await expect(
      page
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { name: first.title }) })
        .getByText('Latest', { exact: true }),
    ).toBeVisible();
  }

  await control(page, '← Back').click();
  await expectHomeScreen(page);
  await expect(page.getByText('New Update')).toHaveCount(0);
});

test('the profile shows the account, copies an invite link and generates 5 more codes', async () => {
  const page = ada$;
  const record = await accountRecord(ORIGIN, ada);
  await control(page, 'View Profile').click();
  await expect(page).toHaveURL((url) => url.pathname === '/profile');
  await expect(page.getByText(ada.email, { exact: true })).toBeVisible();
  await expect(page.getByText(record.id, { exact: true })).toBeVisible();
  await expect(page.getByText('Yes', { exact: true })).toBeVisible();
  await expect(page.getByText(record.created.slice(0, 4)).first()).toBeVisible();

  const copyButtons = page.getByRole('button', { name: 'Copy Invite', exact: true });
  await expect(copyButtons).toHaveCount(5);
  await copyButtons.first().click();
  await expect(page.getByRole('button', { name: 'Copied', exact: true })).toBeVisible();
  const copiedAt = Date.now();
  copiedLink = await page.evaluate(() => navigator.clipboard.readText());
  expect(copiedLink.startsWith(`${ORIGIN}/signup?code=`), `copied: ${copiedLink}`).toBe(true);
  const code = new URL(copiedLink).searchParams.get('code') ?? '';
  await expect(page.getByText(code, { exact: true })).toBeVisible();
  // "Copied" lasts 2 seconds.
  await expect(page.getByRole('button', { name: 'Copied', exact: true })).toHaveCount(0, {
    timeout: 5_000,
  });
  expect(Date.now() - copiedAt, 'Copied showed for about 2 seconds').toBeGreaterThan(1_400);
  await expect(copyButtons).toHaveCount(5);

  // The initial user generates codes, 5 per press; the list is refetched.
  await page.getByRole('button', { name: 'Generate 5 More' }).click();
  await expect(copyButtons).toHaveCount(10);
});

test('a second member signs up with the copied invite link and verifies', async () => {
  const page = ben$;
  const code = new URL(copiedLink).searchParams.get('code') ?? '';
  await page.goto(copiedLink);
  await expect(page.getByLabel('Invite Code', { exact: true })).toHaveValue(code);
  await fillSignUp(page, { email: ben.email, password: ben.password });
  await page.getByRole('button', { name: 'Sign Up' }).click();
  await expect(page.getByText('Account created successfully')).toBeVisible();
  await page.getByRole('button', { name: 'Back to Login' }).click();
  await expectLoginScreen(page);

  const mail = await waitForMail(ben.email, VERIFY_SUBJECT);
  await page.goto(linkIn(mail, `${ORIGIN}/verify-email?token=`));
  await expect(page.getByRole('heading', { name: 'Email Verified!' })).toBeVisible();
  await page.getByRole('button', { name: 'Go to Login' }).click();
  await expectLoginScreen(page);

  // The code is used up: it left the inviter's open list, for Joined with Your Codes.
  await ada$.reload();
  await expect(ada$.getByRole('button', { name: 'Copy Invite', exact: true })).toHaveCount(9);
  await expect(
    ada$.getByRole('list', { name: 'Your invite codes' }).getByText(code, { exact: true }),
  ).toHaveCount(0);
  await expect(
    ada$.getByRole('list', { name: 'Joined with Your Codes' }).getByText(code, { exact: true }),
  ).toHaveCount(1);
});

test("the second member opens What's New from the banner and has no generate buttons", async () => {
  const page = ben$;
  await fillLogin(page, ben.email, ben.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expectHomeScreen(page);

  const banner = page.getByRole('region', { name: 'New Update' });
  await expect(banner).toBeVisible();
  await control(banner, "View What's New").click();
  await expect(page).toHaveURL((url) => url.pathname === '/whats-new');
  await expect(page.getByRole('heading', { name: "What's New", level: 1 })).toBeVisible();
  await control(page, '← Back').click();
  await expectHomeScreen(page);
  await expect(page.getByText('New Update')).toHaveCount(0);

  await control(page, 'View Profile').click();
  await expect(page.getByText(ben.email, { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Copy Invite', exact: true })).toHaveCount(5);
  await expect(page.getByRole('button', { name: /Generate/ })).toHaveCount(0);
  await control(page, 'Back to Home').click();
  await expectHomeScreen(page);
});

test('forgot password: the mailed link sets a new password; the old one stops working', async () => {
  const page = ben$;
  await control(page, 'Log Out').click();
  await expectLoginScreen(page);

  await page.getByRole('link', { name: /forgot/i }).click();
  await expect(page).toHaveURL((url) => url.pathname === '/forgot-password');
  await page.getByLabel('Email', { exact: true }).fill(ben.email);
  await page.getByRole('button', { name: 'Send Reset Link' }).click();
  await expect(page.getByRole('heading', { name: 'Email Sent' })).toBeVisible();
  await expect(
    page.getByText('Password reset email sent! Please check your inbox and spam folder.'),
  ).toBeVisible();

  const mail = await waitForMail(ben.email, RESET_SUBJECT);
  await page.goto(linkIn(mail, `${ORIGIN}/reset-password?token=`));
  await page.getByLabel('New Password', { exact: true }).fill(ben.newPassword);
  await page.getByLabel('Confirm Password', { exact: true }).fill(ben.newPassword);
  await page.getByRole('button', { name: /reset password/i }).click();
  await expect(page.getByText('Password reset successfully!')).toBeVisible();
  const doneAt = Date.now();
  await expect(loginHeading(page)).toBeVisible({ timeout: 8_000 });
  expect(Date.now() - doneAt, 'login came after a 3 second countdown').toBeGreaterThan(1_900);

  await fillLogin(page, ben.email, ben.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page.getByText('Invalid email or password. Please try again.')).toBeVisible();
  await expectLoginScreen(page);

  await fillLogin(page, ben.email, ben.newPassword);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expectHomeScreen(page);
});

test('log out ends the session', async () => {
  const page = ben$;
  await control(page, 'Log Out').click();
  await expectLoginScreen(page);
  expect(await storedTokens(page), 'logout cleared the session').toBe(0);
  await page.goto('/home');
  await expectLoginScreen(page);
  await page.goBack();
  await page.reload();
  await expectLoginScreen(page);
});

test('delete account asks first, then removes the account for good', async () => {
  const page = ben$;
  await logInThroughUi(page, ben.email, ben.newPassword);
  await control(page, 'View Profile').click();
  await expect(page.getByText(ben.email, { exact: true })).toBeVisible();

  const warning = 'This action cannot be undone. All your data will be permanently deleted.';
  await page.getByRole('button', { name: 'Delete Account' }).click();
  await expect(page.getByText(warning)).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByText(warning)).toHaveCount(0);
  await expect(page.getByText(ben.email, { exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'Delete Account' }).click();
  await page.getByRole('button', { name: 'Yes, Delete' }).click();
  await expectLoginScreen(page);
  expect(await storedTokens(page), 'deleting cleared the session').toBe(0);
  await page.goto('/profile');
  await expectLoginScreen(page);

  await fillLogin(page, ben.email, ben.newPassword);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page.getByText('Invalid email or password. Please try again.')).toBeVisible();

  // The inviter keeps her account.
  await ada$.reload();
  await expect(ada$.getByText(ada.email, { exact: true })).toBeVisible();
});
