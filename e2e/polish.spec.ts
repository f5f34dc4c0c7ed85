import { expect, test, type Page } from '@playwright/test';
import {
  logIn,
  newPassword,
  serverWithInitial,
  signUpUnverified,
  signUpVerified,
  uniqueEmail,
} from './support/api';
import { checkScreen } from './support/checks';
import { linkIn, RESET_SUBJECT, VERIFY_SUBJECT, mailTo, waitForMail } from './support/mail';
import { expectHomeScreen, expectLoginScreen, fillLogin, fillSignUp } from './support/ui';

/**
 * What a newcomer notices beyond the spec's texts: the app shell, honest resend, ways forward
 * from dead ends, return to the screen after sign-in, and the invite codes' marks.
 */

const { origin: ORIGIN, initial, spareCode } = serverWithInitial('polish');
test.use({ baseURL: ORIGIN });

/** A mailed link's token as the server shapes it, unsigned: only its claims are read. */
function craftedToken(type: 'verification' | 'passwordReset', email: string, exp: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ id: 'x', type, email, exp, collectionId: '_pb_users_auth_' })}.c2ln`;
}

const anHourAgo = () => Math.floor(Date.now() / 1000) - 3600;

async function signIn(page: Page, member: { email: string; password: string }) {
  await fillLogin(page, member.email, member.password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
}

test.describe('the app shell', () => {
  test('wordmark, the places with the current one marked, the Menu, skip link; at 360 px in light and dark', async ({
    page,
  }) => {
    // Four screens scanned by axe twice each on a shared machine.
    test.setTimeout(300_000);
    await page.goto('/');
    const banner = page.getByRole('banner');
    await expect(banner.getByRole('link', { name: 'Gatehouse' })).toBeVisible();
    await expect(banner.getByRole('button', { name: 'Menu' })).toHaveCount(0);
    await expect(banner.getByRole('navigation')).toHaveCount(0);

    // Keyboard: focus starts on the screen's heading; before it come the wordmark and, first on
    // the page, the skip link, which jumps past the header.
    await expect(page.getByRole('heading', { level: 1, name: 'Welcome back' })).toBeFocused();
    await page.keyboard.press('Shift+Tab');
    await expect(banner.getByRole('link', { name: 'Gatehouse' })).toBeFocused();
    await page.keyboard.press('Shift+Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expect(skip).toBeFocused();
    await expect(skip).toBeVisible();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('main')).toBeFocused();

    await signIn(page, initial);
    await expectHomeScreen(page);
    for (const path of ['/home', '/profile', '/settings', '/whats-new']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      const nav = banner.getByRole('navigation', { name: 'Main' });
      await expect(nav.locator('[aria-current="page"]')).toHaveAttribute('href', path);
      await expect(nav.locator('[aria-current="page"]')).toHaveCount(1);
      const menu = banner.getByRole('button', { name: 'Menu' });
      await menu.click();
      await expect(banner.getByRole('group', { name: 'Theme' })).toBeVisible();
      await checkScreen(page, `Menu open on ${path}`);
      await page.keyboard.press('Escape');
      await expect(banner.getByRole('group', { name: 'Theme' })).toHaveCount(0);
      await expect(menu).toBeFocused();
    }
    // The places lead somewhere: Profile.
    await banner
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Profile' })
      .click();
    await expect(page.getByRole('heading', { level: 1, name: 'Profile' })).toBeVisible();
  });

  test('one heading placement and one width per kind of page', async ({ page }) => {
    const widths = async () =>
      page.evaluate(() => {
        const h1 = document.querySelector('h1')!;
        const column = h1.closest('main > div') as HTMLElement;
        // The h1 sits above the first card, never inside one.
        return { width: column.getBoundingClientRect().width, inCard: !!h1.closest('section') };
      });
    const seen = new Map<string, { width: number; inCard: boolean }>();
    for (const path of ['/', '/signup', '/forgot-password', '/verify-email?token=x', '/nowhere']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      seen.set(path, await widths());
    }
    await page.goto('/');
    await signIn(page, initial);
    await expectHomeScreen(page);
    for (const path of ['/home', '/profile', '/settings', '/whats-new']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      seen.set(path, await widths());
    }
    const forms = ['/', '/signup', '/forgot-password', '/verify-email?token=x', '/nowhere'];
    const pages = ['/home', '/profile', '/settings', '/whats-new'];
    const all = Object.fromEntries(seen);
    expect(new Set(forms.map((p) => seen.get(p)!.width)).size, JSON.stringify(all)).toBe(1);
    expect(new Set(pages.map((p) => seen.get(p)!.width)).size, JSON.stringify(all)).toBe(1);
    expect(
      [...seen.values()].every((v) => !v.inCard),
      JSON.stringify(all),
    ).toBe(true);
  });
});

test('resend waits out the 2 minutes with a visible countdown, also after a reload', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.clock.install();
  const email = uniqueEmail('resend');
  const password = newPassword();
  // Sign-up in this browser asks for the verification mail itself.
  await page.goto(`/signup?code=${await spareCode()}`);
  await fillSignUp(page, { email, password });
  await page.getByRole('button', { name: 'Sign Up' }).click();
  await expect(page.getByText('Account created successfully')).toBeVisible();
  await waitForMail(email, VERIFY_SUBJECT);
  await page.getByRole('button', { name: 'Back to Login' }).click();
  // The email typed at sign-up came along.
  await expect(page.getByLabel('Email', { exact: true })).toHaveValue(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await expect(page.getByText('Email Not Verified')).toBeVisible();
  const waiting = page.getByRole('button', { name: /^Resend in [12]:\d\d$/ });
  await expect(waiting).toBeDisabled();
  await expect(page.getByText('Verification email sent! Check your inbox.')).toHaveCount(0);
  await checkScreen(page, 'Login: resend waiting');

  await page.reload();
  await signIn(page, { email, password });
  await expect(waiting).toBeDisabled();

  await page.clock.fastForward(121_000);
  const resend = page.getByRole('button', { name: 'Resend Verification Email' });
  await expect(resend).toBeEnabled();
  await resend.click();
  await expect(page.getByText('Verification email sent! Check your inbox.')).toBeVisible();
  await expect(waiting).toBeDisabled();
  // Nothing beyond the sign-up's own mail was asked for while the button waited.
  expect(await mailTo(email, VERIFY_SUBJECT)).toHaveLength(1);
});

test('a guest opening /profile lands on /profile after signing in; a foreign redirect is ignored', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.goto('/profile');
  await expectLoginScreen(page);
  await signIn(page, initial);
  await expect(page.getByRole('heading', { level: 1, name: 'Profile' })).toBeVisible();
  await expect(page).toHaveURL(`${ORIGIN}/profile`);

  await page.getByRole('button', { name: 'Back to Home' }).click();
  await page.getByRole('button', { name: 'Log Out' }).click();
  await expect(page.getByText('You have been signed out.')).toBeVisible();
  await checkScreen(page, 'Login: signed out');

  await page.goto('/?redirect=%2F%2Fevil.example%2Fhome');
  await signIn(page, initial);
  await expectHomeScreen(page);
});

test.describe('links from mail that no longer work offer a new one', () => {
  test('an expired verification link: Verification Failed, and a new link on request', async ({
    page,
  }) => {
    const member = await signUpUnverified(ORIGIN, await spareCode(), 'expired-verify');
    await page.goto(
      `/verify-email?token=${craftedToken('verification', member.email, anHourAgo())}`,
    );
    await expect(page.getByRole('heading', { name: 'Verification Failed' })).toBeVisible();
    await expect(
      page.getByText('Failed to verify email. The link may be invalid or expired.'),
    ).toBeVisible();
    await checkScreen(page, 'Verify email: expired link');
    await page.getByRole('button', { name: 'Send a New Link' }).click();
    await expect(page.getByText(/a new link is on its way/)).toBeVisible();
    await expect(page.getByRole('button', { name: /^Send again in/ })).toBeDisabled();
  });

  test('a used reset link is found on load; Request a New Link brings the email along', async ({
    page,
  }) => {
    const member = await signUpVerified(ORIGIN, await spareCode(), 'used-reset');
    await fetch(`${ORIGIN}/api/collections/users/request-password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: member.email }),
    });
    const link = linkIn(await waitForMail(member.email, RESET_SUBJECT), `${ORIGIN}/reset-password`);
    const token = new URL(link).searchParams.get('token')!;
    const used = await fetch(`${ORIGIN}/api/collections/users/confirm-password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password: newPassword(), passwordConfirm: 'x' }),
    });
    expect(used.status).toBe(400);
    const password = newPassword();
    await fetch(`${ORIGIN}/api/collections/users/confirm-password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password, passwordConfirm: password }),
    });

    await page.goto(link);
    await expect(
      page.getByText('Failed to reset password. The link may be invalid or expired.'),
    ).toBeVisible();
    await expect(page.getByLabel('New Password', { exact: true })).toHaveCount(0);
    await page.getByRole('button', { name: 'Request a New Link' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Forgot Password' })).toBeVisible();
    await expect(page.getByLabel('Email', { exact: true })).toHaveValue(member.email);
  });

  test('an expired reset link is told from its own expiry', async ({ page }) => {
    await page.goto(
      `/reset-password?token=${craftedToken('passwordReset', 'someone@example.com', anHourAgo())}`,
    );
    await expect(page.getByRole('button', { name: 'Request a New Link' })).toBeVisible();
  });
});

test('the invite code in the sign-up welcome stays whole at 360 px', async ({ page }) => {
  const code = await spareCode();
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(`/signup?code=${code}`);
  await expect(page.getByText("Welcome! You've been invited.")).toBeVisible();
  const shown = page.getByText(code, { exact: true });
  await expect(shown).toBeVisible();
  // One line box: the code is never broken mid-code.
  expect(await shown.evaluate((el) => el.getClientRects().length)).toBe(1);
  expect((await shown.boundingBox())!.height).toBeLessThan(30);
});

test('sign-up says a code is used before the rest of the form is filled', async ({ page }) => {
  const code = await spareCode();
  await signUpUnverified(ORIGIN, code, 'took-it');
  await page.goto(`/signup?code=${code}`);
  await expect(page.getByText('Invalid or already used invite code.')).toBeVisible();
  await expect(page.getByLabel('Invite Code', { exact: true })).toHaveAttribute(
    'aria-invalid',
    'true',
  );
  await checkScreen(page, 'Sign-up: used code');
});

test('Profile: a copied mark that lasts for the visit, Share where the browser has it, and the danger area', async ({
  page,
  context,
}) => {
  test.setTimeout(180_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
  // This Chromium has no share sheet: give the page one that records what it was handed.
  await page.addInitScript(() => {
    const w = window as unknown as { shared: unknown[] };
    w.shared = [];
    Object.assign(navigator, {
      share: (data: unknown) => {
        w.shared.push(data);
        return Promise.resolve();
      },
      canShare: () => true,
    });
  });
  const member = await signUpVerified(ORIGIN, await spareCode(), 'marks');
  await page.goto('/');
  await signIn(page, member);
  await expectHomeScreen(page);
  await page.getByRole('button', { name: 'View Profile' }).click();
  const rows = page.getByRole('list', { name: 'Your invite codes' }).getByRole('listitem');
  await rows.nth(0).getByRole('button', { name: 'Copy Invite' }).click();
  await expect(rows.nth(0).getByText('Link copied')).toBeVisible();
  await expect(rows.nth(0).getByRole('button', { name: 'Copy Invite' })).toBeVisible();
  await rows.nth(1).getByRole('button', { name: 'Share' }).click();
  await expect(rows.nth(1).getByText('Link shared')).toBeVisible();
  const shared = await page.evaluate(
    () => (window as unknown as { shared: { url: string }[] }).shared,
  );
  expect(shared[0]?.url).toMatch(new RegExp(`^${ORIGIN}/signup\\?code=`));
  await page.reload();
  await expect(rows.nth(0).getByText('Link copied')).toBeVisible();
  await expect(rows.nth(2).getByText(/Link (copied|shared)/)).toHaveCount(0);
  await checkScreen(page, 'Profile with marks');

  // Deletion sits in its own area, apart from the way back, and ends on the login screen saying so.
  const danger = page.getByRole('region', { name: 'Danger Zone' });
  await expect(danger.getByRole('button', { name: 'Delete Account' })).toBeVisible();
  await expect(danger.getByRole('button', { name: 'Back to Home' })).toHaveCount(0);
  await danger.getByRole('button', { name: 'Delete Account' }).click();
  await danger.getByRole('button', { name: 'Yes, Delete' }).click();
  await expect(page.getByText('Your account has been deleted.')).toBeVisible();
  await expectLoginScreen(page);
  await expect(logIn(ORIGIN, member)).rejects.toThrow(/400/);
});
