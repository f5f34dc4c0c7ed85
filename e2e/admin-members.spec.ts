import fs from 'node:fs/promises';
import { expect, test, type Locator, type Page } from '@playwright/test';
import {
  logIn,
  serverWithInitial,
  signUpUnverified,
  signUpVerified,
  uniqueEmail,
} from './support/api';
import { checkScreen } from './support/checks';
import { linkIn, waitForMail } from './support/mail';
import { logInThroughUi, openConsole } from './support/ui';

/**
 * The console's Members table in the browser, against the real server and its mail (on the
 * settings server, whose initial user is an operator; every member here is the test's own, found
 * by a tag in their email): sort by a column, filter with PocketBase's grammar and see a bad
 * filter's words beside the box, select two members and disable them after a question naming the
 * count, export the filtered members as CSV, and invite someone by email. Axe in light and dark at
 * 1280 and 360 px, the keyboard, and the table scrolling sideways on a phone.
 */

const { origin: ORIGIN, initial, spareCode } = serverWithInitial('settings');
test.use({ baseURL: ORIGIN });
test.describe.configure({ timeout: 240_000 });

const INVITE_SUBJECT = "You're invited to join Gatehouse";

function table(page: Page): Locator {
  return page.getByRole('table', { name: 'Members' });
}

/** The emails of the table's rows, top to bottom. */
async function shownEmails(page: Page): Promise<string[]> {
  const links = table(page).getByRole('rowheader').getByRole('link');
  return (await links.allTextContents()).map((t) => t.trim());
}

async function filterBy(page: Page, filter: string): Promise<void> {
  await page.getByLabel('Filter', { exact: true }).fill(filter);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
}

function header(page: Page, name: string): Locator {
  return table(page)
    .getByRole('columnheader')
    .filter({ has: page.getByRole('button', { name }) });
}

test('the operator sorts, filters, disables two members, exports them and invites someone', async ({
  page,
}) => {
  const tag = `tbl${Date.now().toString(36)}`;
  const members = [
    await signUpVerified(ORIGIN, await spareCode(), `${tag}-c`),
    await signUpVerified(ORIGIN, await spareCode(), `${tag}-a`),
    await signUpVerified(ORIGIN, await spareCode(), `${tag}-b`),
    await signUpUnverified(ORIGIN, await spareCode(), `${tag}-d`),
  ];
  const byEmail = members.map((m) => m.email).sort();
  // b signs in, then c: a and d never have.
  await logIn(ORIGIN, members[2]!);
  await logIn(ORIGIN, members[0]!);

  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await expect(table(page)).toBeVisible();

  // Filter with PocketBase's grammar: the tag's members, and then only the unverified one.
  await filterBy(page, `email ~ "${tag}"`);
  await expect(page.getByRole('heading', { name: 'Members matching the filter' })).toBeVisible();
  await expect(page.getByText('4 members', { exact: true })).toBeVisible();
  await filterBy(page, `email ~ "${tag}" && verified = false`);
  await expect(page.getByText('1 member', { exact: true })).toBeVisible();
  expect(await shownEmails(page)).toEqual([members[3]!.email]);

  // A filter the server cannot read: its words beside the box, no table.
  await filterBy(page, `emial ~ "${tag}"`);
  const box = page.getByLabel('Filter', { exact: true });
  await expect(page.getByRole('alert').filter({ hasText: 'Unknown field "emial"' })).toBeVisible();
  await expect(box).toHaveAttribute('aria-invalid', 'true');
  await expect(table(page)).toHaveCount(0);
  await checkScreen(page, 'Members, a filter it cannot read');

  await filterBy(page, `email ~ "${tag}"`);
  await expect(page.getByText('4 members', { exact: true })).toBeVisible();

  // Sort by Email: a click, then Enter on the focused header turns it round.
  await expect(header(page, 'Joined')).toHaveAttribute('aria-sort', 'descending');
  // Last sign-in: a first press shows the latest first, and those who never signed in last.
  await table(page).getByRole('button', { name: 'Last sign-in' }).click();
  await expect(page).toHaveURL((url) => url.searchParams.get('sort') === '-lastSignIn');
  await expect(header(page, 'Last sign-in')).toHaveAttribute('aria-sort', 'descending');
  await expect
    .poll(async () => (await shownEmails(page)).slice(0, 2))
    .toEqual([members[0]!.email, members[2]!.email]);
  expect(new Set((await shownEmails(page)).slice(2))).toEqual(
    new Set([members[1]!.email, members[3]!.email]),
  );
  await table(page).getByRole('button', { name: 'Email' }).click();
  await expect(page).toHaveURL((url) => url.searchParams.get('sort') === 'email');
  await expect(header(page, 'Email')).toHaveAttribute('aria-sort', 'ascending');
  await expect.poll(() => shownEmails(page)).toEqual(byEmail);
  await table(page).getByRole('button', { name: 'Email' }).focus();
  await page.keyboard.press('Enter');
  await expect(header(page, 'Email')).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(() => shownEmails(page)).toEqual([...byEmail].reverse());
  await expect(page.getByLabel('Sort', { exact: true })).toHaveValue('-email');

  // Select two members (a click and the keyboard's Space) and disable them.
  const [first, second] = [members[1]!, members[2]!];
  await table(page).getByLabel(`Select ${first.email}`).check();
  await table(page).getByLabel(`Select ${second.email}`).focus();
  await page.keyboard.press('Space');
  const bulk = page.getByRole('group', { name: 'Bulk actions' });
  await expect(bulk.getByText('2 selected')).toBeVisible();
  const disable = bulk.getByRole('button', { name: 'Disable', exact: true });
  await disable.click();
  const question = page.getByRole('dialog', { name: 'Disable 2 members?' });
  await expect(question.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await checkScreen(page, 'Members, asked to disable 2', { every: true });
  // Escape changes nothing and gives focus back.
  await page.keyboard.press('Escape');
  await expect(question).toHaveCount(0);
  await expect(disable).toBeFocused();
  await disable.click();
  await question.getByRole('button', { name: 'Yes, Disable' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Disabled 2 members.' })).toBeVisible();
  for (const m of [first, second]) {
    const row = table(page).getByRole('row').filter({ hasText: m.email });
    await expect(row.getByRole('cell', { name: 'Disabled' })).toBeVisible();
  }
  await expect(bulk.getByText('Select members for an action')).toBeVisible();

  // Export CSV: the filtered members in the shown order, the two of them disabled.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^members-\d{4}-\d\d-\d\d\.csv$/);
  const csv = await fs.readFile((await download.path())!, 'utf8');
  const lines = csv.trimEnd().split('\r\n');
  expect(lines[0]).toBe('email,name,status,verified,two_step,last_sign_in,inviter_email,joined');
  expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([...byEmail].reverse());
  const status = Object.fromEntries(lines.slice(1).map((l) => [l.split(',')[0], l.split(',')[2]]));
  expect(status[first.email]).toBe('disabled');
  expect(status[second.email]).toBe('disabled');
  expect(status[members[0]!.email]).toBe('active');
  for (const line of lines.slice(1)) expect(line.split(',')[6]).toBe(initial.email);

  await checkScreen(page, 'Members table, filtered and sorted', { every: true });

  // On a phone the table scrolls sideways in its own region (the page does not), by keyboard too.
  await page.setViewportSize({ width: 360, height: 740 });
  const region = page.getByRole('region', { name: 'Members table' });
  const widths = await region.evaluate((el) => ({
    scroll: el.scrollWidth,
    client: el.clientWidth,
  }));
  expect(widths.scroll).toBeGreaterThan(widths.client);
  await region.focus();
  for (let i = 0; i < 40; i++) await page.keyboard.press('ArrowRight');
  await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
  await expect(table(page).getByRole('button', { name: 'Joined' })).toBeInViewport();
  await page.setViewportSize({ width: 1280, height: 800 });

  // Invite by Email: a bad address is said at the field; a member's address by the server.
  const invite = page.getByRole('form', { name: 'Invite by email' });
  const address = invite.getByLabel('Email address');
  await address.fill('not an address');
  await invite.getByRole('button', { name: 'Send Invite' }).click();
  await expect(invite.getByText('Please enter a valid email address.')).toBeVisible();
  await expect(address).toBeFocused();
  await address.fill(members[0]!.email);
  await invite.getByRole('button', { name: 'Send Invite' }).click();
  await expect(invite.getByText('This address is already a member.')).toBeVisible();
  const friend = uniqueEmail(`${tag}-friend`);
  await address.fill(friend);
  await page.keyboard.press('Enter');
  await expect(
    page.getByRole('status').filter({ hasText: `Invite sent to ${friend}.` }),
  ).toBeVisible();
  await expect(address).toHaveValue('');
  const mail = await waitForMail(friend, INVITE_SUBJECT);
  const link = linkIn(mail, `${ORIGIN}/signup?code=`);
  expect(mail.text).toContain(`${initial.email} invited you to join Gatehouse.`);

  // The link's code signs the friend up, with the operator as their inviter.
  const joined = await signUpVerified(
    ORIGIN,
    new URL(link).searchParams.get('code') ?? '',
    `${tag}-e`,
  );
  await filterBy(page, `email = "${joined.email}"`);
  const row = table(page).getByRole('row').filter({ hasText: joined.email });
  await expect(row.getByRole('link', { name: initial.email })).toBeVisible();
});
