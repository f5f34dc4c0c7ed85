import fs from 'node:fs/promises';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import {
  accountRecord,
  type Member,
  newPassword,
  serverWithInitial,
  signUpVerified,
  uniqueEmail,
} from './support/api';
import { expectScreenTitle } from './support/checks';
import {
  EMAIL_CHANGED_SUBJECT,
  EMAIL_CHANGE_SUBJECT,
  linkIn,
  PASSWORD_CHANGED_SUBJECT,
  waitForMail,
} from './support/mail';
import {
  control,
  expectHomeScreen,
  expectLoginScreen,
  fillLogin,
  logInThroughUi,
} from './support/ui';

/**
 * Members manage their own security, through the browser, against the real server and its mail:
 * change the password (other devices are signed out, this one stays), change the email through
 * the mailed link, sign out another device, Log Out (the token dies on the server), and download
 * their data. Each test brings in a member of its own with the initial user's codes.
 */

const { origin: ORIGIN, spareCode } = serverWithInitial('settings');
test.use({ baseURL: ORIGIN });

async function newMember(who: string): Promise<Member> {
  return signUpVerified(ORIGIN, await spareCode(), who);
}

/** A second browser (its own cookies and storage) signed in as `member`: another device. */
async function otherDevice(browser: Browser, member: Member) {
  const context = await browser.newContext({ baseURL: ORIGIN });
  const page = await context.newPage();
  await logInThroughUi(page, member.email, member.password);
  return { context, page };
}

async function openSettings(page: Page): Promise<void> {
  await control(page, 'View Profile').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Profile' })).toBeVisible();
  await control(page.getByRole('main'), 'Settings').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();
  await expect(page).toHaveURL((url) => url.pathname === '/settings');
  await expectScreenTitle(page, 'Settings · Gatehouse');
}

function card(page: Page, name: string) {
  return page.getByRole('region', { name });
}

async function storedToken(page: Page): Promise<string> {
  return page.evaluate(() => {
    const raw = window.localStorage.getItem('pocketbase_auth');
    return raw ? (JSON.parse(raw) as { token: string }).token : '';
  });
}

let others: BrowserContext[] = [];
test.afterEach(async () => {
  await Promise.all(others.map((c) => c.close()));
  others = [];
});

test('change password: the other device lands on login, this one stays, the old password fails', async ({
  page,
  browser,
}) => {
  const member = await newMember('chpw');
  const other = await otherDevice(browser, member);
  others.push(other.context);
  await logInThroughUi(page, member.email, member.password);
  await openSettings(page);

  const password = card(page, 'Password');
  const next = newPassword();
  await password.getByLabel('Current Password', { exact: true }).fill(member.password);
  await password.getByLabel('New Password', { exact: true }).fill(next);
  await password.getByLabel('Confirm New Password', { exact: true }).fill(next);
  await password.getByRole('button', { name: 'Change Password' }).click();
  await expect(
    page.getByText('Password changed. Your other devices have been signed out.'),
  ).toBeVisible();
  // The notice mail went to the member.
  await waitForMail(member.email, PASSWORD_CHANGED_SUBJECT);

  // This device stays signed in, across a reload too (its fresh token is stored).
  await expect(card(page, 'Signed-In Devices').getByText('This device')).toBeVisible();
  await expect(
    card(page, 'Signed-In Devices').getByRole('button', { name: 'Sign Out' }),
  ).toHaveCount(0);
  await expect(card(page, 'Recent Activity').getByText('Password changed')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await expect(page).toHaveURL((url) => url.pathname === '/settings');

  // The other device, left on Home, is shown the login screen without doing anything (its
  // session ended on the server, and the news reached its tab over realtime).
  await expectLoginScreen(other.page);
  expect(await storedToken(other.page)).toBe('');

  // The old password no longer signs in; the new one does.
  await fillLogin(other.page, member.email, member.password);
  await other.page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(other.page.getByText('Invalid email or password. Please try again.')).toBeVisible();
  await fillLogin(other.page, member.email, next);
  await other.page.getByRole('button', { name: 'Sign In', exact: true }).click();
  // Back where it was when its session ended.
  await expectHomeScreen(other.page);
});

test('change email through the mailed link, opened while signed in', async ({ page }) => {
  const member = await newMember('chmail');
  const newEmail = uniqueEmail('chmail-new');
  await logInThroughUi(page, member.email, member.password);
  await openSettings(page);

  const email = card(page, 'Email');
  await expect(email.getByText(member.email, { exact: true })).toBeVisible();
  await email.getByLabel('New Email', { exact: true }).fill(newEmail);
  await email.getByRole('button', { name: 'Send Confirmation Link' }).click();
  await expect(page.getByText(`Check ${newEmail} for a confirmation link.`)).toBeVisible();

  const link = linkIn(
    await waitForMail(newEmail, EMAIL_CHANGE_SUBJECT),
    `${ORIGIN}/confirm-email-change?token=`,
  );
  // Signed in, the link still opens its own screen (no redirect to /home).
  await page.goto(link);
  await expect(page.getByRole('heading', { level: 1, name: 'Confirm New Email' })).toBeFocused();
  await expect(page).toHaveURL((url) => url.pathname === '/confirm-email-change');
  await expectScreenTitle(page, 'Confirm New Email · Gatehouse');

  // A wrong password: said plainly under the field; a retry with the right one works.
  await page.getByLabel('Password', { exact: true }).fill('not-my-password');
  await page.getByRole('button', { name: 'Confirm Email Change' }).click();
  await expect(page.getByText("That password isn't right.")).toBeVisible();
  await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute(
    'aria-invalid',
    'true',
  );
  await page.getByLabel('Password', { exact: true }).fill(member.password);
  await page.getByRole('button', { name: 'Confirm Email Change' }).click();
  await expect(page.getByText('Email changed. Please sign in with your new email.')).toBeVisible();
  expect(await storedToken(page)).toBe('');
  await expectLoginScreen(page);

  // The old address was told; the new one signs in, the old one no longer does.
  await waitForMail(member.email, EMAIL_CHANGED_SUBJECT);
  await fillLogin(page, member.email, member.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page.getByText('Invalid email or password. Please try again.')).toBeVisible();
  await fillLogin(page, newEmail, member.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expectHomeScreen(page);

  // The link works once.
  await page.goto(link);
  await page.getByLabel('Password', { exact: true }).fill(member.password);
  await page.getByRole('button', { name: 'Confirm Email Change' }).click();
  await expect(page.getByText('This link is invalid or has expired.')).toBeVisible();
});

test('sign out another device from Signed-In Devices; it is shown the login screen at once', async ({
  page,
  browser,
}) => {
  const member = await newMember('devices');
  const other = await otherDevice(browser, member);
  others.push(other.context);
  await logInThroughUi(page, member.email, member.password);
  await openSettings(page);

  const devices = card(page, 'Signed-In Devices').getByRole('list', {
    name: 'Your signed-in devices',
  });
  await expect(devices.getByRole('listitem')).toHaveCount(2);
  const here = devices.getByRole('listitem').filter({ hasText: 'This device' });
  await expect(here).toContainText('Chrome on Linux');
  await expect(here).toContainText('127.0.0.1');
  await expect(here.getByRole('button', { name: 'Sign Out' })).toHaveCount(0);
  const away = devices.getByRole('listitem').filter({ hasNotText: 'This device' });
  await away.getByRole('button', { name: 'Sign Out' }).click();
  await expect(page.getByText('Chrome on Linux has been signed out.')).toBeVisible();
  await expect(devices.getByRole('listitem')).toHaveCount(1);
  await expect(card(page, 'Recent Activity').getByText('Signed out another device')).toBeVisible();

  // The other device, left on Home, is shown the login screen without doing anything; a reload
  // keeps it there (the ended session is not restored).
  await expectLoginScreen(other.page);
  expect(await storedToken(other.page)).toBe('');
  await other.page.reload();
  await expectLoginScreen(other.page);
  // This one goes on.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
});

test('Sign Out All Other Devices: every other device is shown the login screen at once', async ({
  page,
  browser,
}) => {
  const member = await newMember('alldevices');
  const second = await otherDevice(browser, member);
  const third = await otherDevice(browser, member);
  others.push(second.context, third.context);
  await logInThroughUi(page, member.email, member.password);
  await openSettings(page);
  // The second device is on Settings too; the third on its profile.
  await second.page.goto('/settings');
  await expect(second.page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await control(third.page, 'View Profile').click();

  const devices = card(page, 'Signed-In Devices');
  await expect(devices.getByRole('listitem')).toHaveCount(3);
  await devices.getByRole('button', { name: 'Sign Out All Other Devices' }).click();
  await expect(page.getByText('All other devices have been signed out.')).toBeVisible();
  await expect(devices.getByRole('listitem')).toHaveCount(1);

  // Both other devices, one on Settings and one on its profile, are shown the login screen
  // without doing anything; this one stays.
  await expectLoginScreen(second.page);
  await expectLoginScreen(third.page);
  expect(await storedToken(second.page)).toBe('');
  expect(await storedToken(third.page)).toBe('');
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
});

test('Log Out ends the session on the server: the old token is refused', async ({
  page,
  request,
}) => {
  const member = await newMember('logout');
  await logInThroughUi(page, member.email, member.password);
  const token = await storedToken(page);
  expect(token).not.toBe('');
  const before = await request.post(`${ORIGIN}/api/collections/users/auth-refresh`, {
    headers: { Authorization: token },
  });
  expect(before.status()).toBe(200);

  await control(page, 'Log Out').click();
  await expectLoginScreen(page);
  expect(await storedToken(page)).toBe('');
  const after = await request.post(`${ORIGIN}/api/collections/users/auth-refresh`, {
    headers: { Authorization: token },
  });
  expect(after.status()).toBe(401);
});

test('Download My Data saves gatehouse-export-{id}.json with the record and no secret', async ({
  page,
}) => {
  const member = await newMember('export');
  const record = await accountRecord(ORIGIN, member);
  await logInThroughUi(page, member.email, member.password);
  await openSettings(page);

  const downloading = page.waitForEvent('download');
  await card(page, 'Your Data').getByRole('button', { name: 'Download My Data' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`gatehouse-export-${record.id}.json`);
  const text = await fs.readFile(await download.path(), 'utf8');
  const data = JSON.parse(text) as {
    record: { id: string; email: string };
    inviteCodes: unknown[];
    sessions: unknown[];
    securityEvents: unknown[];
  };
  expect(data.record).toMatchObject({ id: record.id, email: member.email });
  expect(data.inviteCodes.length).toBeGreaterThan(0);
  expect(data.sessions.length).toBeGreaterThan(0);
  expect(data.securityEvents.length).toBeGreaterThan(0);
  expect(keysIn(data).filter((k) => /password|tokenkey|hash/i.test(k))).toEqual([]);
  expect(text).not.toContain('tokenKey');
  expect(text).not.toContain(member.password);
});

/** Every key of every object in `value`, however deep. */
function keysIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysIn);
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) => [key, ...keysIn(inner)]);
  }
  return [];
}
