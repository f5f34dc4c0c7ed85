import { expect, test, type Page } from '@playwright/test';
import { type Member, serverWithInitial, signUpVerified } from './support/api';
import { checkScreen, expectScreenTitle } from './support/checks';
import {
  control,
  expectHomeScreen,
  logInThroughUi,
  openConsole,
  openConsoleMember,
  storedTokens,
} from './support/ui';

/**
 * View as member, for support: the initial user opens a member's console page, views as them (the
 * question first), sees Home, Profile and Settings as the member does under the bar "Viewing as
 * {email}", cannot do what only the member may, and Stop returns to the member's console page with
 * their own session; the member's security events say what happened.
 */

const { origin: ORIGIN, initial, spareCode } = serverWithInitial('settings');
test.use({ baseURL: ORIGIN });
test.describe.configure({ timeout: 360_000 });

function bar(page: Page) {
  return page.getByRole('region', { name: 'Viewing as a member' });
}

function card(page: Page, name: string) {
  return page.getByRole('region', { name });
}

/** Whose session the page is signed in with: the email of the SDK store's record. */
function signedInAs(page: Page): Promise<string> {
  return page.evaluate(() => {
    const stored = JSON.parse(window.localStorage.getItem('pocketbase_auth') ?? '{}') as {
      record?: { email?: string };
    };
    return stored.record?.email ?? '';
  });
}

test('an operator views as a member, and Stop returns to their console page', async ({ page }) => {
  const member: Member = await signUpVerified(ORIGIN, await spareCode(), 'viewed');

  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleMember(page, member.email);
  const actions = card(page, 'Actions');
  const viewAs = actions.getByRole('button', { name: 'View as Member', exact: true });

  // The question names the member; Cancel changes nothing.
  await viewAs.click();
  const question = page.getByRole('dialog', { name: `View as ${member.email}?` });
  await expect(question).toBeVisible();
  await expect(question.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await checkScreen(page, 'the View as Member question');
  await question.getByRole('button', { name: 'Cancel' }).click();
  await expect(question).toHaveCount(0);
  await expect(bar(page)).toHaveCount(0);

  await viewAs.click();
  await question.getByRole('button', { name: 'Yes, View as Member', exact: true }).click();

  // Home, as the member sees it, under the bar.
  await expectHomeScreen(page);
  await expect(bar(page).getByText(`Viewing as ${member.email}`)).toBeVisible();
  expect(await signedInAs(page)).toBe(member.email);
  // The operator's own session waits in this tab's sessionStorage, never in localStorage.
  expect(await storedTokens(page)).toBe(1);
  const kept = await page.evaluate(() => window.sessionStorage.getItem('gatehouse_view_as') ?? '');
  expect(kept).toContain(initial.email);
  await checkScreen(page, 'Home while viewing as a member', { every: true });

  // By keyboard, Stop comes between the skip link and the header.
  await page.getByRole('banner').getByRole('link', { name: 'Gatehouse' }).focus();
  await page.keyboard.press('Shift+Tab');
  await expect(bar(page).getByRole('button', { name: 'Stop', exact: true })).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();

  // Profile and Settings are the member's; the bar stays on every signed-in screen.
  await control(page, 'View Profile').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Profile' })).toBeVisible();
  await expect(page.getByText(member.email).first()).toBeVisible();
  await expect(bar(page)).toBeVisible();
  await control(page.getByRole('main'), 'Settings').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();
  await expectScreenTitle(page, 'Settings · Gatehouse');
  await expect(bar(page)).toBeVisible();
  const devices = card(page, 'Signed-In Devices');
  await expect(
    devices.getByText(`An operator (${initial.email}) viewing your account`),
  ).toBeVisible();

  // What only the member may do is refused in words, without asking the operator to confirm.
  const data = card(page, 'Your Data');
  await data.getByRole('button', { name: 'Download My Data' }).click();
  await expect(
    data.getByText('Only the member can do this: it cannot be done while viewing as them.'),
  ).toBeVisible();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await checkScreen(page, 'Settings while viewing as a member');

  // Stop, by keyboard: the member's console page, with the operator's session back.
  await bar(page).getByRole('button', { name: 'Stop', exact: true }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: member.email })).toBeVisible();
  await expect(page).toHaveURL((url) => url.pathname === `/admin/members/${member.id}`);
  await expect(bar(page)).toHaveCount(0);
  expect(await signedInAs(page)).toBe(initial.email);
  expect(await page.evaluate(() => window.sessionStorage.getItem('gatehouse_view_as'))).toBeNull();

  // Both ends of the view are on the member's record.
  const events = card(page, 'Recent Security Events');
  await expect(events.getByText('Account viewed by an operator')).toBeVisible();
  await expect(events.getByText('Operator stopped viewing the account')).toBeVisible();
  await checkScreen(page, "the member's console page after Stop");
});
