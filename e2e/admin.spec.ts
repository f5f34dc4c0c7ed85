import {
  expect,
  test,
  type Browser,
  type BrowserContext,
  type Locator,
  type Page,
} from '@playwright/test';
import {
  inviteCodes,
  logIn,
  type Member,
  serverWithInitial,
  signUpUnverified,
  signUpVerified,
  turnOnTwoStep,
} from './support/api';
import { e2eEnv } from './support/env';
import { checkScreen, expectScreenTitle } from './support/checks';
import { VERIFY_SUBJECT, mailTo, waitForMail } from './support/mail';
import { startMailReceiver, type MailReceiver } from './support/smtp';
import {
  control,
  expectHomeScreen,
  expectLoginScreen,
  fillLogin,
  logInThroughUi,
  openConsole,
  openConsoleMember,
  openConsoleSection,
} from './support/ui';

/**
 * The operator console (/admin) in the browser, against the real server, its database and a real
 * SMTP receiver that this file stops and starts: the initial user finds a member and acts on their
 * account (the member's own browser feels it), walks the invite tree, reads the security log,
 * watches a mail fail while the mail server is down and sends it with Retry Now once it is back;
 * a member who is not an operator gets no way in.
 */

const { server, origin: ORIGIN, initial, spareCode } = serverWithInitial('admin');
test.use({ baseURL: ORIGIN });
// Each test walks several screens and scans some of them with axe four times: room on a busy machine.
test.describe.configure({ timeout: 360_000 });

const TEST_SUBJECT = 'Gatehouse test email';

// This server's mail server: up, except while a test takes it down.
let receiver: MailReceiver;
test.beforeAll(async () => {
  if (!server.smtpPort) throw new Error('The admin server has no mail receiver of its own');
  receiver = await startMailReceiver(e2eEnv().mailDir, server.smtpPort);
});
test.afterAll(async () => {
  await receiver.close();
});

async function newMember(who: string): Promise<Member> {
  return signUpVerified(ORIGIN, await spareCode(), who);
}

let others: BrowserContext[] = [];
test.afterEach(async () => {
  await Promise.all(others.map((c) => c.close()));
  others = [];
});

/** A second browser (its own storage) signed in as `member`. */
async function otherBrowser(browser: Browser, member: Member) {
  const context = await browser.newContext({ baseURL: ORIGIN });
  others.push(context);
  const page = await context.newPage();
  await logInThroughUi(page, member.email, member.password);
  return page;
}

function region(page: Page, name: string) {
  return page.getByRole('region', { name });
}

function notice(page: Page, text: string) {
  return page.getByRole('status').filter({ hasText: text });
}

/**
 * Presses a console action's button, checks the question it asks (nothing happens before), and
 * answers it with `confirm` ("Yes, Disable").
 */
async function confirmAction(
  page: Page,
  button: Locator,
  question: { title: string; confirm: string },
): Promise<void> {
  await button.click();
  const dialog = page.getByRole('dialog', { name: question.title });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await dialog.getByRole('button', { name: question.confirm, exact: true }).click();
  await expect(dialog).toHaveCount(0);
}

test('the initial user disables, enables, gives and revokes codes, and makes an operator', async ({
  page,
  browser,
}) => {
  const member = await newMember('target');
  const theirs = await otherBrowser(browser, member);
  // A member who is not an operator has no Admin in the header.
  await expect(control(theirs, 'Admin')).toHaveCount(0);

  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleMember(page, member.email);
  const details = region(page, 'Details');
  await expect(details.getByRole('link', { name: initial.email })).toBeVisible();
  await expect(details.getByText('Active', { exact: true })).toBeVisible();

  // Disable: the member's open browser is signed out at its next step, and sign-in is refused.
  const actions = region(page, 'Actions');
  await confirmAction(page, actions.getByRole('button', { name: 'Disable', exact: true }), {
    title: `Disable ${member.email}?`,
    confirm: 'Yes, Disable',
  });
  await expect(
    notice(page, `${member.email} has been disabled and signed out everywhere.`),
  ).toBeVisible();
  await expect(details.getByText('Disabled', { exact: true })).toBeVisible();
  // (Their tab may already be on the login screen: the ended session reaches it live.)
  await theirs.goto('/profile');
  await expectLoginScreen(theirs);
  await fillLogin(theirs, member.email, member.password);
  await theirs.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(theirs.getByText('This account has been disabled.')).toBeVisible();

  // Enable: they sign in again.
  await confirmAction(page, actions.getByRole('button', { name: 'Enable', exact: true }), {
    title: `Enable ${member.email}?`,
    confirm: 'Yes, Enable',
  });
  await expect(
    notice(page, `${member.email} has been enabled and can sign in again.`),
  ).toBeVisible();
  await theirs.getByRole('button', { name: 'Sign In', exact: true }).click();
  // Back where they were going (Profile), then Home.
  await expect(theirs.getByRole('heading', { level: 1, name: 'Profile' })).toBeVisible();
  await theirs.goto('/home');
  await expectHomeScreen(theirs);

  // Give 5 More Codes, then revoke one of them.
  const codes = region(page, 'Invite Codes');
  const list = codes.getByRole('list', { name: 'Their invite codes' });
  await expect(list.getByRole('listitem')).toHaveCount(5);
  await codes.getByRole('button', { name: 'Give 5 More Codes' }).click();
  await expect(notice(page, `Gave 5 new invite codes to ${member.email}.`)).toBeVisible();
  await expect(list.getByRole('listitem')).toHaveCount(10);
  await expect(codes.getByText('10 unused, 0 used.')).toBeVisible();
  const revoked = (await list.getByRole('code').first().textContent()) ?? '';
  await confirmAction(page, list.getByRole('button', { name: 'Revoke' }).first(), {
    title: `Revoke invite code ${revoked} of ${member.email}?`,
    confirm: 'Yes, Revoke',
  });
  await expect(notice(page, `Invite code ${revoked} has been revoked.`)).toBeVisible();
  await expect(list.getByRole('listitem')).toHaveCount(9);
  // The member sees the same codes on their profile.
  expect(await inviteCodes(ORIGIN, member)).toHaveLength(9);
  expect(await inviteCodes(ORIGIN, member)).not.toContain(revoked);

  // Make Operator: the member now sees Admin and opens the console.
  await confirmAction(page, actions.getByRole('button', { name: 'Make Operator' }), {
    title: `Make ${member.email} an operator?`,
    confirm: 'Yes, Make Operator',
  });
  await expect(notice(page, `${member.email} is now an operator.`)).toBeVisible();
  await expect(details.getByText('Operator', { exact: true })).toBeVisible();
  await expect(actions.getByRole('button', { name: 'Remove Operator' })).toBeVisible();
  await theirs.reload();
  await expectHomeScreen(theirs);
  await openConsole(theirs);
  // An operator who is not the initial user cannot change roles.
  await openConsoleMember(theirs, initial.email);
  await expect(control(theirs, 'Make Operator')).toHaveCount(0);
  await expect(control(theirs, 'Disable')).toHaveCount(0);

  // Each action is in the security log: filter by the member, then by type.
  await openConsoleSection(page, 'Security Log');
  await page.getByLabel("Member's email", { exact: true }).fill(member.email);
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  await expect(page.getByText(`Showing the events of ${member.email}.`)).toBeVisible();
  await page.getByLabel('Event type').selectOption({ label: 'Account disabled by an operator' });
  await expect(page).toHaveURL((url) => url.searchParams.get('type') === 'admin_disable');
  const events = page.getByRole('list', { name: 'Security events' });
  await expect(events.getByRole('listitem')).toHaveCount(1);
  await expect(events.getByText('Account disabled by an operator')).toBeVisible();
  await expect(events.getByRole('link', { name: member.email })).toBeVisible();
  // Named by who did it: the initial user, a link to their page.
  await expect(events.getByText(`${member.email} · by ${initial.email}`)).toBeVisible();
  await expect(events.getByRole('link', { name: initial.email })).toBeVisible();
  await page.getByLabel('Event type').selectOption({ label: 'All events' });
  for (const words of [
    'Account enabled by an operator',
    'Invite codes given by an operator',
    'Invite code revoked by an operator',
    'Made an operator',
  ]) {
    await expect(events.getByText(words).first()).toBeVisible();
  }
});

test('a member who lost their phone: the operator resets two-step sign-in, the member signs in with the password', async ({
  page,
  browser,
}) => {
  const member = await newMember('lostphone');
  await turnOnTwoStep(ORIGIN, member);
  await expect(logIn(ORIGIN, member)).rejects.toThrow(/answered 401/);

  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleMember(page, member.email);
  await expect(
    region(page, 'Details').getByText('Password, two-step sign-in', { exact: true }),
  ).toBeVisible();
  const reset = region(page, 'Actions').getByRole('button', { name: 'Reset Two-Step Sign-In' });

  // Cancel changes nothing.
  await reset.click();
  const question = page.getByRole('dialog', {
    name: `Reset two-step sign-in for ${member.email}?`,
  });
  await expect(
    question.getByText(
      'Two-step sign-in is turned off (their recovery codes stop working). They sign in with their password alone',
      { exact: false },
    ),
  ).toBeVisible();
  await question.getByRole('button', { name: 'Cancel' }).click();
  await expect(question).toHaveCount(0);
  await expect(reset).toBeFocused();
  await expect(logIn(ORIGIN, member)).rejects.toThrow(/answered 401/);

  await confirmAction(page, reset, {
    title: `Reset two-step sign-in for ${member.email}?`,
    confirm: 'Yes, Reset',
  });
  await expect(notice(page, `Two-step sign-in of ${member.email} has been reset.`)).toBeVisible();
  await expect(region(page, 'Details').getByText('Password', { exact: true })).toBeVisible();
  await expect(reset).toHaveCount(0);
  await waitForMail(member.email, 'Two-step sign-in was reset on your Gatehouse account');

  // The member signs in with the password alone.
  await otherBrowser(browser, member);

  // The security log says who did it.
  await openConsoleSection(page, 'Security Log');
  await page
    .getByLabel('Event type')
    .selectOption({ label: 'Two-step sign-in reset by an operator' });
  const events = page.getByRole('list', { name: 'Security events' });
  await expect(events.getByText(`${member.email} · by ${initial.email}`)).toBeVisible();
});

test('the invite tree shows who invited whom and expands a branch', async ({ page }) => {
  const parent = await newMember('parent');
  const [code] = await inviteCodes(ORIGIN, parent);
  const child = await signUpVerified(ORIGIN, code ?? '', 'child');

  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleSection(page, 'Invite Tree');
  const tree = page.getByRole('list', { name: 'Invite tree' });
  await expect(tree.getByRole('link', { name: initial.email })).toBeVisible();
  const row = tree
    .getByRole('listitem')
    .filter({ has: page.getByRole('link', { name: parent.email }) });
  await expect(row.getByText('1 invited · 1 in branch').first()).toBeVisible();
  await expect(tree.getByRole('link', { name: child.email })).toHaveCount(0);

  const expand = page.getByRole('button', { name: `Expand ${parent.email}` });
  await expect(expand).toHaveAttribute('aria-expanded', 'false');
  await expand.click();
  const branch = page.getByRole('list', { name: `Invited by ${parent.email}` });
  await expect(branch.getByRole('link', { name: child.email })).toBeVisible();
  await expect(page.getByRole('button', { name: `Collapse ${parent.email}` })).toHaveAttribute(
    'aria-expanded',
    'true',
  );
  await checkScreen(page, 'Invite Tree, a branch open', { every: true });
  // Every row of a branch starts its email at the same place, at 1280 and at 360 px, and the
  // counts line up under the email (not floating right of it).
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 800 });
    const rows = await page
      .getByRole('list', { name: `Invited by ${initial.email}` })
      .evaluate((list) =>
        [...list.children].map((li) => {
          const email = li.querySelector('a')!.getBoundingClientRect();
          const counts = [...li.querySelectorAll('span')].find((el) =>
            / invited · /.test(el.textContent ?? ''),
          )!;
          return {
            email: Math.round(email.left),
            // The line the counts are on (an Operator badge may come first on it).
            counts: Math.round(counts.parentElement!.getBoundingClientRect().left),
          };
        }),
      );
    expect(rows.length, `${width} px`).toBeGreaterThan(1);
    expect(new Set(rows.map((row) => row.email)).size, `${width} px: ${JSON.stringify(rows)}`).toBe(
      1,
    );
    for (const row of rows) expect(row.counts, `${width} px`).toBe(row.email);
  }
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByRole('button', { name: `Collapse ${parent.email}` }).click();
  await expect(page.getByRole('link', { name: child.email })).toHaveCount(0);

  // The branch leads to the child's page, which names who invited them.
  await page.getByRole('button', { name: `Expand ${parent.email}` }).click();
  await branch.getByRole('link', { name: child.email }).click();
  await expect(page.getByRole('heading', { level: 1, name: child.email })).toBeFocused();
  await expect(region(page, 'Details').getByRole('link', { name: parent.email })).toBeVisible();
});

test('a mail that fails while the mail server is down goes out on Retry Now', async ({ page }) => {
  const member = await signUpUnverified(ORIGIN, await spareCode(), 'unverified');
  await waitForMail(member.email, VERIFY_SUBJECT);

  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleMember(page, member.email);
  await expect(region(page, 'Details').getByText('No', { exact: true })).toBeVisible();

  // The mail server goes down; the resent verification mail fails.
  await receiver.close();
  await region(page, 'Actions').getByRole('button', { name: 'Resend Verification' }).click();
  await expect(notice(page, `Verification email sent to ${member.email}.`)).toBeVisible();

  await openConsoleSection(page, 'Mail');
  const queued = page.getByRole('list', { name: 'Queued mail' });
  const row = queued.getByRole('listitem').filter({ hasText: member.email });
  await expect(row).toHaveCount(1, { timeout: 20_000 });
  await expect(row.getByText(VERIFY_SUBJECT)).toBeVisible();
  // Failing after its first attempt, with the error the mail server gave (the screen follows).
  await expect(row.getByText('Failing', { exact: true })).toBeVisible({ timeout: 20_000 });
  await expect(row.getByText(/ECONNREFUSED/)).toBeVisible();
  await expect(row.getByText('1', { exact: true })).toBeVisible();
  await checkScreen(page, 'Mail, a failing mail', { every: true });
  expect(await mailTo(member.email, VERIFY_SUBJECT)).toHaveLength(1);

  // The mail server is back; the next try is minutes away, so Retry Now sends it.
  receiver = await startMailReceiver(e2eEnv().mailDir, server.smtpPort);
  await row.getByRole('button', { name: 'Retry Now' }).click();
  await expect(notice(page, `Retrying the mail to ${member.email} now.`)).toBeVisible();
  await waitForMail(member.email, VERIFY_SUBJECT, { nth: 2 });
  await expect(row).toHaveCount(0, { timeout: 20_000 });

  // Send Test Email reaches the operator.
  const before = (await mailTo(initial.email, TEST_SUBJECT)).length;
  await page.getByRole('button', { name: 'Send Test Email' }).click();
  await expect(notice(page, `Test email queued to ${initial.email}.`)).toBeVisible();
  const test = await waitForMail(initial.email, TEST_SUBJECT, { nth: before + 1 });
  expect(test.text).toContain('sent from the operator console');
});

test('a member who is not an operator has no Admin, and /admin refuses them', async ({ page }) => {
  const member = await newMember('plain');
  await logInThroughUi(page, member.email, member.password);
  await expect(control(page, 'View Profile')).toBeVisible();
  await expect(control(page, 'Admin')).toHaveCount(0);

  for (const path of ['/admin', '/admin/mail', `/admin/members/${initial.id}`]) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: 'Not Allowed' })).toBeFocused();
    await expect(page.getByText('Only operators can use the operator console.')).toBeVisible();
    await expectScreenTitle(page, 'Not Allowed · Gatehouse');
    await expect(page.getByRole('navigation', { name: 'Operator console' })).toHaveCount(0);
    await expect(page.getByText(initial.email)).toHaveCount(0);
  }
  await checkScreen(page, 'Not Allowed', { every: true });
  // Its heading sits above the card, as on every screen.
  const heading = await page.getByRole('heading', { level: 1, name: 'Not Allowed' }).boundingBox();
  const card = await page
    .getByText('Only operators can use the operator console.')
    .locator('xpath=..')
    .boundingBox();
  expect(heading!.y + heading!.height).toBeLessThanOrEqual(card!.y);
  await control(page, 'Back to Home').click();
  await expectHomeScreen(page);

  // A visitor is sent to sign in.
  await control(page, 'Log Out').click();
  await expectLoginScreen(page);
  await page.goto('/admin');
  await expectLoginScreen(page);
});

test('Members and a member page pass axe at 1280 and 360 px, light and dark, by keyboard', async ({
  page,
}) => {
  const member = await newMember('scan');
  await logInThroughUi(page, initial.email, initial.password);
  // Keyboard only: back from Home's heading into the header to Admin, and press Enter.
  const admin = control(page, 'Admin');
  for (let i = 0; i < 10 && !(await admin.evaluate((el) => el === document.activeElement)); i++) {
    await page.keyboard.press('Shift+Tab');
  }
  await expect(admin).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Members' })).toBeFocused();
  await expect(
    page.getByRole('table', { name: 'Members' }).getByRole('link').first(),
  ).toBeVisible();
  await checkScreen(page, 'Members', { every: true });

  await page.getByLabel('Status').selectOption({ label: 'Verified' });
  await page.getByLabel('Sort').selectOption({ label: 'Email (A to Z)' });
  await expect(page).toHaveURL((url) => url.searchParams.get('sort') === 'email');
  await openConsoleMember(page, member.email);
  await checkScreen(page, 'Member', { every: true });
  // The member's actions are buttons of one width, at 1280 and at 360 px.
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 800 });
    const widths = await region(page, 'Actions')
      .getByRole('button')
      .evaluateAll((buttons) => buttons.map((b) => Math.round(b.getBoundingClientRect().width)));
    expect(widths.length, `${width} px`).toBeGreaterThan(2);
    expect(new Set(widths).size, `${width} px: ${widths.join(', ')}`).toBe(1);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  // Delete asks first, in a dialog that takes focus; Escape cancels and gives focus back.
  const remove = region(page, 'Actions').getByRole('button', { name: 'Delete', exact: true });
  await remove.click();
  const question = page.getByRole('dialog', { name: `Delete ${member.email}?` });
  await expect(question.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await expect(
    question.getByText('This action cannot be undone. All their data will be permanently deleted.'),
  ).toBeVisible();
  await checkScreen(page, 'Member, asked to delete', { every: true });
  await page.keyboard.press('Escape');
  await expect(question).toHaveCount(0);
  await expect(remove).toBeFocused();
  await page.keyboard.press('Enter');
  await question.getByRole('button', { name: 'Yes, Delete' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Members' })).toBeFocused();
  await page.getByLabel('Search by email', { exact: true }).fill(member.email);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByText('No members match this search.')).toBeVisible();

  // A page past the last one (an old link) says so and offers the way back.
  await page.goto('/admin?page=999');
  const pager = page.getByRole('navigation', { name: 'Member pages' });
  await expect(
    pager.getByText(/^Page 999 is past the end of the list: it has \d+ pages?\.$/),
  ).toBeVisible();
  await expect(page.getByText(/None of/)).toHaveCount(0);
  await pager.getByRole('button', { name: /^Go to (First|Last) Page$/ }).click();
  await expect(
    page.getByRole('table', { name: 'Members' }).getByRole('link').first(),
  ).toBeVisible();
  await expect(page.getByText(/past the end/)).toHaveCount(0);
});

test('Invite Tree, Mail and Security Log pass axe at 1280 and 360 px, light and dark', async ({
  page,
}) => {
  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  for (const name of ['Invite Tree', 'Mail', 'Security Log']) {
    await openConsoleSection(page, name);
    await expect(page.getByText(/^Loading/)).toHaveCount(0);
    await checkScreen(page, name, { every: true });
  }
});
