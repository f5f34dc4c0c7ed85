import fs from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { logIn, serverWithInitial, signUpUnverified } from './support/api';
import { checkScreen, expectScreenTitle } from './support/checks';
import { linkIn, waitForMail } from './support/mail';
import {
  expectHomeScreen,
  expectLoginScreen,
  fillLogin,
  logInThroughUi,
  openConsole,
} from './support/ui';

/**
 * The console's Settings and Backups in the browser, against the real server (its own, whose data
 * a restore replaces) with SMTP_URL and APP_URL set in its environment, and the real SMTP
 * receiver: the initial user renames the app, sees what the environment sets read-only, gets a
 * field error, sends a test email that arrives; makes a backup, downloads it, uploads a copy and
 * deletes it, restores the backup with its typed name, and signs in again to the backup's data.
 * Both screens are scanned with axe at 1280 and 360 px, light and dark.
 */

const { origin: ORIGIN, initial, spareCode } = serverWithInitial('backups');
test.use({ baseURL: ORIGIN });
test.describe.configure({ mode: 'serial', timeout: 360_000 });

function region(page: Page, name: string) {
  return page.getByRole('region', { name });
}

async function openConsoleScreen(page: Page, link: string, heading: string) {
  await page
    .getByRole('navigation', { name: 'Operator console' })
    .getByRole('link', { name: link })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: heading })).toBeFocused();
  await expectScreenTitle(page, `${heading} · Gatehouse`);
}

test('Settings: the app renamed and kept, the environment’s fields read-only, a field error, a test email that arrives, all in the security log', async ({
  page,
}) => {
  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleScreen(page, 'Settings', 'App Settings');

  // What the environment sets (SMTP_URL, APP_URL) is shown, read-only, naming the variable.
  const mail = region(page, 'Mail Server');
  const host = mail.getByLabel('Host', { exact: true });
  await expect(host).toHaveValue('127.0.0.1');
  await expect(host).toHaveAttribute('readonly', '');
  await expect(host).toHaveAccessibleDescription(/Set by the server's environment \(SMTP_URL\)\./);
  await expect(mail.getByLabel('Send mail through this SMTP server')).toBeDisabled();
  await expect(mail.getByRole('button', { name: 'Save Mail Server' })).toHaveCount(0);
  const appUrl = region(page, 'Application').getByLabel('App URL');
  await expect(appUrl).toHaveValue(ORIGIN);
  await expect(appUrl).toHaveAttribute('readonly', '');
  await expect(appUrl).toHaveAccessibleDescription(/\(APP_URL\)/);
  await checkScreen(page, 'App Settings', { every: true });

  // The section links, by keyboard: Enter on "Members" leads there, and Tab goes on inside it.
  const sections = page.getByRole('navigation', { name: 'Settings sections' });
  await sections.getByRole('link', { name: 'Members' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL((url) => url.hash === '#members');
  await expect(region(page, 'Members')).toBeInViewport();
  await page.keyboard.press('Tab');
  const codes = region(page, 'Members').getByLabel('Invite codes per new member');
  await expect(codes).toBeFocused();

  // A bad value: the server's field error under its field, focused; nothing saved.
  const days = region(page, 'Members').getByLabel('Session length (days)');
  await days.fill('0');
  await days.press('Enter');
  await expect(
    region(page, 'Members').getByText('Enter a whole number from 1 to 3650.'),
  ).toBeVisible();
  await expect(days).toBeFocused();
  await expect(days).toHaveAttribute('aria-invalid', 'true');
  await checkScreen(page, 'App Settings with a field error');

  // Renamed by keyboard (Enter saves the section), and kept after a reload.
  await sections.getByRole('link', { name: 'Application' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  const name = region(page, 'Application').getByLabel('App name');
  await expect(name).toBeFocused();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('Harbour');
  await page.keyboard.press('Enter');
  await expect(
    region(page, 'Application')
      .getByRole('status')
      .filter({ hasText: 'Application settings saved.' }),
  ).toBeVisible();
  await page.reload();
  await expect(region(page, 'Application').getByLabel('App name')).toHaveValue('Harbour');
  await expect(region(page, 'Members').getByLabel('Session length (days)')).toHaveValue('30');

  // A test email, sent through the real mail server with the new name.
  const to = `desk-${Date.now()}@example.org`;
  const form = region(page, 'Mail Server').getByRole('form', { name: 'Send a Test Email' });
  await form.getByLabel('Send to').fill(to);
  await form.getByLabel('Which mail').selectOption({ label: 'Password reset' });
  await form.getByRole('button', { name: 'Send Test Email' }).click();
  await expect(
    form.getByText(`Test email queued to ${to}. It should arrive in a moment.`),
  ).toBeVisible();
  const arrived = await waitForMail(to, 'Reset your Harbour password');
  expect(arrived.text).toContain(`${ORIGIN}/reset-password?token=`);

  // Batch requests turned on: a time limit of 0 is refused under its field, 5 seconds is kept.
  const batch = region(page, 'Batch Requests');
  await batch.getByLabel('Allow batch requests').check();
  const timeLimit = batch.getByLabel('Time limit (seconds)');
  await timeLimit.fill('0');
  await batch.getByRole('button', { name: 'Save Batch Requests' }).click();
  await expect(batch.getByText('Enter a number greater than 0.')).toBeVisible();
  await expect(timeLimit).toBeFocused();
  await expect(timeLimit).toHaveAttribute('aria-invalid', 'true');
  await timeLimit.fill('5');
  await batch.getByRole('button', { name: 'Save Batch Requests' }).click();
  await expect(
    batch.getByRole('status').filter({ hasText: 'Batch request settings saved.' }),
  ).toBeVisible();
  await page.reload();
  await expect(region(page, 'Batch Requests').getByLabel('Allow batch requests')).toBeChecked();
  await expect(region(page, 'Batch Requests').getByLabel('Time limit (seconds)')).toHaveValue('5');

  // Both in the security log, as the operator's own: the field named, never a value.
  await openConsoleScreen(page, 'Security Log', 'Security Log');
  const events = page.getByRole('list', { name: 'Security events' });
  await expect(events.getByText('Settings changed: meta.appName', { exact: true })).toBeVisible();
  await expect(events.getByText(`Test email sent to ${to}`, { exact: true })).toBeVisible();
});

test('Backups: made, downloaded, a copy uploaded and deleted; a restore with the typed name brings back the backup’s data and signs everyone out', async ({
  page,
}) => {
  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleScreen(page, 'Backups', 'Backups');
  const list = page.getByRole('list', { name: 'Backups' });
  const row = (key: string) => list.getByRole('listitem').filter({ hasText: key });

  // Made, with a name.
  const create = region(page, 'Create a Backup');
  await create.getByLabel('Name (optional)').fill('before_change.zip');
  await create.getByRole('button', { name: 'Create Backup' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'Backup before_change.zip created.' }),
  ).toBeVisible();
  await expect(row('before_change.zip')).toContainText(/\d+(\.\d)? (KB|MB) · /);

  // Downloaded: a ZIP archive by that name.
  const downloading = page.waitForEvent('download');
  await row('before_change.zip').getByRole('button', { name: 'Download' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('before_change.zip');
  const bytes = await fs.readFile((await download.path())!);
  expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');

  // Uploaded under another name, then deleted after a question naming it.
  const upload = region(page, 'Upload a Backup');
  await upload
    .getByLabel('Backup file')
    .setInputFiles({ name: 'copied_in.zip', mimeType: 'application/zip', buffer: bytes });
  await upload.getByRole('button', { name: 'Upload Backup' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'Backup copied_in.zip uploaded.' }),
  ).toBeVisible();
  await row('copied_in.zip').getByRole('button', { name: 'Delete' }).click();
  const remove = page.getByRole('dialog', { name: 'Delete copied_in.zip?' });
  await expect(remove.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await remove.getByRole('button', { name: 'Yes, Delete' }).click();
  await expect(
    page.getByRole('status').filter({ hasText: 'Backup copied_in.zip has been deleted.' }),
  ).toBeVisible();
  await expect(row('copied_in.zip')).toHaveCount(0);
  await checkScreen(page, 'Backups', { every: true });

  // After the backup: a new member, and a new app name. The restore takes both away.
  const newcomer = await signUpUnverified(ORIGIN, await spareCode(), 'newcomer');
  // The app is called Harbour now (the first test), in its mail too.
  const link = linkIn(
    await waitForMail(newcomer.email, 'Verify your Harbour email'),
    `${ORIGIN}/verify-email?token=`,
  );
  const confirmed = await fetch(`${ORIGIN}/api/collections/users/confirm-verification`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(link).searchParams.get('token') }),
  });
  expect(confirmed.status).toBe(204);
  expect(await logIn(ORIGIN, newcomer)).toBeTruthy();
  await page.goto('/admin/settings');
  const name = region(page, 'Application').getByLabel('App name');
  await expect(name).toHaveValue('Harbour');
  await name.fill('After The Backup');
  await region(page, 'Application').getByRole('button', { name: 'Save Application' }).click();
  await expect(
    region(page, 'Application').getByRole('status').filter({ hasText: 'saved' }),
  ).toBeVisible();
  await page.goto('/admin/backups');

  // Restore: the dialog says what is lost and wants the backup's name typed, by keyboard.
  await row('before_change.zip').getByRole('button', { name: 'Restore' }).click();
  const dialog = page.getByRole('dialog', { name: 'Restore before_change.zip?' });
  await expect(dialog).toHaveAccessibleDescription(
    /Everything added or changed since then is lost\. Everyone is signed out, you too/,
  );
  const typed = dialog.getByLabel('Type before_change.zip to confirm');
  await expect(typed).toBeFocused();
  await page.keyboard.type('before_change');
  await page.keyboard.press('Enter');
  await expect(dialog.getByText("Type the backup's name exactly: before_change.zip")).toBeVisible();
  await checkScreen(page, 'Restore dialog', { every: true });
  await typed.fill('before_change.zip');
  await page.keyboard.press('Enter');

  // Signed out, on the sign-in screen with a note; the old session is gone on the server too.
  await expectLoginScreen(page);
  await expect(
    page.getByText('The backup was restored and everyone was signed out. Sign in again.'),
  ).toBeVisible();
  await checkScreen(page, 'Sign in after a restore');
  await expect(logIn(ORIGIN, newcomer)).rejects.toThrow(/answered 400/);

  // Signed in again: the backup's data, and the restore in the security log.
  await fillLogin(page, initial.email, initial.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expectHomeScreen(page);
  await page.goto('/admin/settings');
  await expect(region(page, 'Application').getByLabel('App name')).toHaveValue('Harbour');
  await page.goto('/admin/security-log');
  await expect(
    page
      .getByRole('list', { name: 'Security events' })
      .getByText('Backup restored: before_change.zip', { exact: true }),
  ).toBeVisible();
});
