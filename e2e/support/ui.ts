import { expect, type BrowserContext, type Locator, type Page, type Route } from '@playwright/test';
import { expectScreenTitle } from './checks';

/** Steps a person takes, in the product's words (docs/product.md). */

export function loginHeading(page: Page) {
  return page.getByRole('heading', { name: 'Welcome back' });
}

export async function expectLoginScreen(page: Page): Promise<void> {
  await expect(loginHeading(page)).toBeVisible();
  await expect(page).toHaveURL((url) => url.pathname === '/');
}

export async function expectHomeScreen(page: Page): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Welcome!' })).toBeVisible();
  await expect(page).toHaveURL((url) => url.pathname === '/home');
}

export async function fillLogin(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
}

export async function logInThroughUi(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/');
  await expectLoginScreen(page);
  await fillLogin(page, email, password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expectHomeScreen(page);
}

export async function fillSignUp(
  page: Page,
  values: { email: string; password: string; confirm?: string; code?: string },
): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(values.email);
  if (values.code !== undefined)
    await page.getByLabel('Invite Code', { exact: true }).fill(values.code);
  await page.getByLabel('Password', { exact: true }).fill(values.password);
  await page
    .getByLabel('Confirm Password', { exact: true })
    .fill(values.confirm ?? values.password);
}

/**
 * The login screen's second step (two-step sign-in): the authenticator app's 6 digits go in the
 * "Authentication Code" digit fields, which submit themselves once whole; a recovery code goes in
 * the text field "Use a recovery code" opens, then Verify.
 */
export async function enterSecondStepCode(page: Page, code: string): Promise<void> {
  await expect(
    page.getByRole('heading', { level: 1, name: 'Two-Step Verification' }),
  ).toBeVisible();
  const appCode = /^\d{6}$/.test(code);
  const toggle = page.getByRole('button', {
    name: appCode ? 'Use a 6-digit code' : 'Use a recovery code',
    exact: true,
  });
  if (await toggle.isVisible()) await toggle.click();
  if (appCode) {
    await digitFields(page, 'Authentication Code').first().fill(code);
    return;
  }
  await page.getByLabel('Authentication Code', { exact: true }).fill(code);
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
}

/** The fields of a code typed one digit per field (the group is named by its legend). */
export function digitFields(page: Page, group: string): Locator {
  return page.getByRole('group', { name: group, exact: true }).getByRole('textbox');
}

/**
 * Holds every request to `path` until `release()` is called, so a busy state can be seen for
 * sure. Returns a promise for the moment the first request is being held.
 */
export async function holdRequests(page: Page, path: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const arrived = new Promise<void>((resolve) => (held = resolve));
  const passed: Promise<void>[] = [];
  const handler = (route: Route) => {
    held();
    const passing = released.then(() => route.continue());
    passed.push(passing);
    return passing;
  };
  const pattern = (url: URL) => url.pathname === path;
  await page.route(pattern, handler);
  return {
    arrived,
    release: async () => {
      release();
      await Promise.all(passed);
      await page.unroute(pattern, handler);
    },
  };
}

/** A control a person would call a button, whether it is built as a button or a link. */
export function control(scope: Page | Locator, name: string | RegExp) {
  const exact = typeof name === 'string';
  return scope.getByRole('button', { name, exact }).or(scope.getByRole('link', { name, exact }));
}

/** Whether any auth token (a JWT) is left in the page's localStorage, under whatever key. */
export async function storedTokens(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      Object.values(window.localStorage).filter((v) => /eyJ[\w-]+\.[\w-]+\.[\w-]+/.test(v)).length,
  );
}

/** The header's Admin: the operator console opens on Members. */
export async function openConsole(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Members' })).toBeFocused();
  await expect(page).toHaveURL((url) => url.pathname === '/admin');
  await expectScreenTitle(page, 'Members · Gatehouse');
}

/** One of the console's screens, through its navigation (the screen's heading is its name). */
export async function openConsoleSection(page: Page, name: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Operator console' })
    .getByRole('link', { name })
    .click();
  await expect(page.getByRole('heading', { level: 1, name })).toBeFocused();
  await expectScreenTitle(page, `${name} · Gatehouse`);
}

/** Console Members → search for `email` → their page. */
export async function openConsoleMember(page: Page, email: string): Promise<void> {
  await page.getByLabel('Search by email', { exact: true }).fill(email.split('@')[0] ?? email);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page.getByText('1 member', { exact: true })).toBeVisible();
  await page
    .getByRole('table', { name: 'Members' })
    .getByRole('rowheader')
    .getByRole('link', { name: email, exact: true })
    .click();
  await expect(page.getByRole('heading', { level: 1, name: email })).toBeFocused();
  await expectScreenTitle(page, 'Member · Gatehouse');
}

/**
 * This browser has seen an earlier release's notes (as a member who was here before the latest
 * release): Home then shows the New Update banner. A browser that has seen none records the latest
 * silently on the first visit, with no banner (docs/decisions/0066).
 */
export async function viewedEarlierRelease(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const key = 'gatehouse.lastViewedChangelogVersion';
    if (window.localStorage.getItem(key) === null) window.localStorage.setItem(key, '0.0.1');
  });
}
