import { expect, type Page } from '@playwright/test';

/** The test provider's development login page (support/oidc.ts) takes any login and password. */

/** A login the provider has not seen: its verified email is `{login}@example.com`. */
export function newProviderLogin(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

/**
 * Clicks `trigger`, then signs in as `login` on the provider's page in the popup it opens, and
 * waits for the popup to close (the SDK closes it once the app has the answer). With a provider
 * session from earlier in this browser it closes without its login page.
 */
export async function throughProviderPopup(
  page: Page,
  trigger: () => Promise<void>,
  login: string,
): Promise<void> {
  const popupOpened = page.waitForEvent('popup');
  await trigger();
  const popup = await popupOpened;
  const closed = new Promise<'closed'>((resolve) => {
    if (popup.isClosed()) resolve('closed');
    else popup.once('close', () => resolve('closed'));
  });
  const loginField = popup.locator('input[name="login"]');
  const first = await Promise.race([
    closed,
    loginField.waitFor({ timeout: 30_000 }).then(() => 'login' as const),
  ]);
  if (first === 'login') {
    await loginField.fill(login);
    await popup.locator('input[name="password"]').fill('any password');
    await popup.getByRole('button', { name: 'Sign-in' }).click();
  }
  await expect.poll(() => popup.isClosed(), { timeout: 30_000 }).toBe(true);
}
