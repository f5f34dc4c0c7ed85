import { expect, test, type Page } from '@playwright/test';
import {
  logIn,
  newPassword,
  serverWithInitial,
  signUpUnverified,
  signUpVerified,
  uniqueEmail,
  verificationLink,
} from './support/api';
import { checkScreen, expectScreenTitle } from './support/checks';
import { EMAIL_CHANGE_SUBJECT, linkIn, RESET_SUBJECT, waitForMail } from './support/mail';
import {
  control,
  expectHomeScreen,
  expectLoginScreen,
  fillLogin,
  fillSignUp,
  holdRequests,
  logInThroughUi,
  loginHeading,
  viewedEarlierRelease,
} from './support/ui';

/**
 * Every screen and state of docs/product.md, one at a time: its texts, an axe scan (light and dark,
 * laptop and 360 px) with no serious or critical violation, no sideways scrolling at 360 px, and
 * its page title. People are set up through the API; each screen is then used through the UI.
 */

const { origin: ORIGIN, initial, spareCode } = serverWithInitial('screens');
test.use({ baseURL: ORIGIN });

/** One unused invite code of the initial user's (who makes more when they run out). */

/**
 * Stops the page's clock (Date) while timers keep running: a countdown screen holds still for a
 * scan. `advance(ms)` moves it on.
 */
async function holdClock(page: Page) {
  let now = Date.now();
  await page.clock.setFixedTime(now);
  return {
    advance: async (ms: number) => {
      now += ms;
      await page.clock.setFixedTime(now);
    },
  };
}

test.describe('visitor screens', () => {
  test('Login', async ({ page }) => {
    await page.goto('/');
    await expectLoginScreen(page);
    await expectScreenTitle(page, 'Sign in · Gatehouse');
    await expect(page.getByLabel('Email', { exact: true })).toHaveAttribute('type', 'email');
    await expect(page.getByLabel('Email', { exact: true })).toHaveAttribute('required', '');
    await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('type', 'password');
    await expect(page.getByRole('link', { name: /forgot/i })).toHaveAttribute(
      'href',
      '/forgot-password',
    );
    await expect(page.getByRole('link', { name: /sign up/i })).toHaveAttribute('href', '/signup');
    await expect(page.getByRole('button', { name: 'Sign In', exact: true })).toBeVisible();
    await checkScreen(page, 'Login');
  });

  test('Login: wrong password', async ({ page }) => {
    await page.goto('/');
    await fillLogin(page, initial.email, 'not-the-password');
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect(page.getByText('Invalid email or password. Please try again.')).toBeVisible();
    await checkScreen(page, 'Login with an error');
  });

  test('Login: Email Not Verified, resend, and resend failure', async ({ page }) => {
    const member = await signUpUnverified(ORIGIN, await spareCode(), 'unverified');
    await page.goto('/');
    await fillLogin(page, member.email, member.password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect(page.getByText('Email Not Verified')).toBeVisible();
    await checkScreen(page, 'Login: Email Not Verified');

    await page.getByRole('button', { name: /resend/i }).click();
    await expect(page.getByText('Verification email sent! Check your inbox.')).toBeVisible();
    await checkScreen(page, 'Login: verification email sent');

    // The button now waits out the server's 2 minutes, with its countdown.
    await expect(page.getByRole('button', { name: /^Resend in [12]:\d\d$/ })).toBeDisabled();

    // Another member, the server being unreachable: the resend failure message.
    const other = await signUpUnverified(ORIGIN, await spareCode(), 'unreachable');
    await page.route(
      (url) => url.pathname === '/api/collections/users/request-verification',
      (route) => route.abort('connectionrefused'),
    );
    await fillLogin(page, other.email, other.password);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect(page.getByText('Email Not Verified')).toBeVisible();
    await page.getByRole('button', { name: /resend/i }).click();
    await expect(
      page.getByText('Failed to resend verification email. Please try again.'),
    ).toBeVisible();
    await checkScreen(page, 'Login: resend failed');
  });

  test('Sign-up: fields, rules and messages', async ({ page }) => {
    await page.goto('/signup');
    await expect(page.getByRole('button', { name: 'Sign Up' })).toBeVisible();
    await expect(page.getByLabel('Invite Code', { exact: true })).toHaveValue('');
    await expect(page.getByLabel('Email', { exact: true })).toHaveAttribute('type', 'email');
    for (const label of ['Password', 'Confirm Password']) {
      await expect(page.getByLabel(label, { exact: true })).toHaveAttribute('minlength', '8');
      await expect(page.getByLabel(label, { exact: true })).toHaveAttribute('required', '');
    }
    await expectScreenTitle(page);
    await checkScreen(page, 'Sign-up');

    const password = newPassword();
    const email = uniqueEmail('rules');
    await fillSignUp(page, { email, password, code: '' });
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await expect(page.getByText('Invite code is required')).toBeVisible();

    await fillSignUp(page, { email, password, confirm: `${password}x`, code: 'ABCD' });
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await expect(page.getByText('Passwords do not match')).toBeVisible();

    await fillSignUp(page, { email, password: 'short12', code: 'ABCD' });
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await expect(page.getByText('Password must be at least 8 characters long')).toBeVisible();
    await checkScreen(page, 'Sign-up with an error');

    // A code the server does not know: its message, prefixed by the field.
    await fillSignUp(page, { email, password, code: 'NOPE-NOPE-NOPE' });
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await expect(page.getByText('Invite code: Invalid or already used invite code.')).toBeVisible();
  });

  test('Sign-up with an invite code in the link', async ({ page }) => {
    const code = 'WELC-OME0-CODE';
    await page.goto(`/signup?code=${code}`);
    await expect(page.getByLabel('Invite Code', { exact: true })).toHaveValue(code);
    await expect(page.getByText(code, { exact: true })).toBeVisible();
    await checkScreen(page, 'Sign-up with a code');
  });

  test('Sign-up: created, counting down 5 seconds to login', async ({ page }) => {
    const clock = await holdClock(page);
    await page.goto(`/signup?code=${await spareCode()}`);
    await fillSignUp(page, { email: uniqueEmail('created'), password: newPassword() });
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await expect(page.getByText('Account created successfully')).toBeVisible();
    await expect(page.getByText(/\b5 seconds\b/)).toBeVisible();
    await checkScreen(page, 'Sign-up: created');
    await clock.advance(1_000);
    await expect(page.getByText(/\b4 seconds\b/)).toBeVisible();
    await expect(loginHeading(page)).toHaveCount(0);
    await clock.advance(4_000);
    await expectLoginScreen(page);
  });

  test('Forgot password, Email Sent, and its failure', async ({ page }) => {
    await page.goto('/forgot-password');
    await expect(page.getByLabel('Email', { exact: true })).toHaveAttribute('type', 'email');
    await expectScreenTitle(page);
    await checkScreen(page, 'Forgot password');

    await page.route(
      (url) => url.pathname === '/api/collections/users/request-password-reset',
      (route) => route.abort('connectionrefused'),
    );
    await page.getByLabel('Email', { exact: true }).fill(initial.email);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await expect(
      page.getByText(
        'Failed to send password reset email. Please check your email address and try again.',
      ),
    ).toBeVisible();
    await checkScreen(page, 'Forgot password: failed');
    await page.unrouteAll();

    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await expect(page.getByRole('heading', { name: 'Email Sent' })).toBeVisible();
    await expect(
      page.getByText('Password reset email sent! Please check your inbox and spam folder.'),
    ).toBeVisible();
    await checkScreen(page, 'Forgot password: Email Sent');
  });

  test('Reset password: rules, and a bad link', async ({ page }) => {
    const member = await signUpVerified(ORIGIN, await spareCode(), 'rules');
    await fetch(`${ORIGIN}/api/collections/users/request-password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: member.email }),
    });
    await page.goto(
      linkIn(await waitForMail(member.email, RESET_SUBJECT), `${ORIGIN}/reset-password`),
    );
    await expectScreenTitle(page);
    for (const label of ['New Password', 'Confirm Password']) {
      await expect(page.getByLabel(label, { exact: true })).toHaveAttribute('minlength', '8');
    }
    await checkScreen(page, 'Reset password');

    const submit = page.getByRole('button', { name: /reset password/i });
    await page.getByLabel('New Password', { exact: true }).fill('long-enough-1');
    await page.getByLabel('Confirm Password', { exact: true }).fill('long-enough-2');
    await submit.click();
    await expect(page.getByText('Passwords do not match')).toBeVisible();

    await page.getByLabel('New Password', { exact: true }).fill('short');
    await page.getByLabel('Confirm Password', { exact: true }).fill('short');
    await submit.click();
    await expect(page.getByText('Password must be at least 8 characters')).toBeVisible();

    // A link that is not one: the failure text at once, and the way to a new link.
    await page.goto('/reset-password?token=not-a-real-token');
    await expect(
      page.getByText('Failed to reset password. The link may be invalid or expired.'),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: 'Request a New Link' })).toBeVisible();
    await expect(page.getByText('Password reset successfully!')).toHaveCount(0);
    await checkScreen(page, 'Reset password: failed');
  });

  test('Reset password: success, counting down 3 seconds to login', async ({ page }) => {
    const member = await signUpVerified(ORIGIN, await spareCode(), 'reset');
    await fetch(`${ORIGIN}/api/collections/users/request-password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: member.email }),
    });
    const link = linkIn(await waitForMail(member.email, RESET_SUBJECT), `${ORIGIN}/reset-password`);

    const clock = await holdClock(page);
    await page.goto(link);
    const password = newPassword();
    await page.getByLabel('New Password', { exact: true }).fill(password);
    await page.getByLabel('Confirm Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: /reset password/i }).click();
    await expect(page.getByText('Password reset successfully!')).toBeVisible();
    await checkScreen(page, 'Reset password: success');
    await clock.advance(2_000);
    await expect(page.getByText(/\b1 second\b/)).toBeVisible();
    await expect(loginHeading(page)).toHaveCount(0);
    await clock.advance(1_000);
    await expectLoginScreen(page);
  });

  test('Verify email: verifying, then Email Verified! counting down 3 seconds', async ({
    page,
  }) => {
    const member = await signUpUnverified(ORIGIN, await spareCode(), 'verify');
    const link = await verificationLink(ORIGIN, member.email);

    const clock = await holdClock(page);
    const hold = await holdRequests(page, '/api/collections/users/confirm-verification');
    await page.goto(link);
    await hold.arrived;
    await expect(page.getByRole('heading', { name: 'Verifying Email...' })).toBeVisible();
    await expectScreenTitle(page);
    await checkScreen(page, 'Verify email: verifying');
    await hold.release();

    await expect(page.getByRole('heading', { name: 'Email Verified!' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Go to Login' })).toBeVisible();
    await checkScreen(page, 'Verify email: verified');
    await clock.advance(2_000);
    await expect(page.getByText(/\b1 second\b/)).toBeVisible();
    await expect(loginHeading(page)).toHaveCount(0);
    await clock.advance(1_000);
    await expectLoginScreen(page);
  });

  test('Verify email: Verification Failed', async ({ page }) => {
    await page.goto('/verify-email?token=not-a-real-token');
    await expect(page.getByRole('heading', { name: 'Verification Failed' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Go to Login' })).toBeVisible();
    await checkScreen(page, 'Verify email: failed');
    await page.getByRole('button', { name: 'Go to Login' }).click();
    await expectLoginScreen(page);
  });

  test('Not Found', async ({ page }) => {
    await page.goto('/no-such-page');
    await expect(page.getByRole('heading', { name: 'Not Found' })).toBeVisible();
    await expectScreenTitle(page);
    await checkScreen(page, 'Not Found');
  });
});

test.describe('signed-in screens', () => {
  test('Home with the New Update banner, then without it', async ({ page }) => {
    await viewedEarlierRelease(page.context());
    await logInThroughUi(page, initial.email, initial.password);
    await expectScreenTitle(page);
    await expect(page.getByRole('region', { name: 'New Update' })).toBeVisible();
    await checkScreen(page, 'Home with the New Update banner');
    await page
      .getByRole('region', { name: 'New Update' })
      .getByRole('button', { name: /dismiss|close/i })
      .click();
    await expect(page.getByText('New Update')).toHaveCount(0);
    await checkScreen(page, 'Home');
  });

  test('Profile: details, invite codes, copy, delete confirmation and delete failure', async ({
    page,
    context,
  }) => {
    // Five states, each scanned twice by axe: slow on a shared machine.
    test.slow();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await logInThroughUi(page, initial.email, initial.password);
    await control(page, 'View Profile').click();
    await expect(page.getByText(initial.email, { exact: true })).toBeVisible();
    await expect(page.getByText(initial.id, { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Generate 5 More' })).toBeVisible();
    await expect(control(page, 'Back to Home')).toBeVisible();
    await expectScreenTitle(page);
    await checkScreen(page, 'Profile');

    await page.getByRole('button', { name: 'Copy Invite', exact: true }).first().click();
    await expect(page.getByRole('button', { name: 'Copied', exact: true })).toBeVisible();
    await checkScreen(page, 'Profile: Copied');

    await page.getByRole('button', { name: 'Delete Account' }).click();
    await expect(
      page.getByText('This action cannot be undone. All your data will be permanently deleted.'),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: 'Cancel' })).toBeVisible();
    await checkScreen(page, 'Profile: confirm delete');

    // A failed delete shows the error and gives the button back.
    await page.route(
      (url) => url.pathname.startsWith('/api/collections/users/records/'),
      (route) =>
        route.request().method() === 'DELETE'
          ? route.fulfill({
              status: 500,
              json: { data: {}, message: 'The account could not be deleted.', status: 500 },
            })
          : route.fallback(),
    );
    await page.getByRole('button', { name: 'Yes, Delete' }).click();
    await expect(page.getByText('The account could not be deleted.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Yes, Delete' })).toBeEnabled();
    await checkScreen(page, 'Profile: delete failed');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('button', { name: 'Delete Account' })).toBeVisible();
  });

  test("What's New: loaded, and loading", async ({ page }) => {
    await logInThroughUi(page, initial.email, initial.password);
    const hold = await holdRequests(page, '/changelog.json');
    await page.goto('/whats-new');
    await hold.arrived;
    await expect(page.getByText('Loading updates...')).toBeVisible();
    await checkScreen(page, "What's New: loading");
    await hold.release();
    await expect(page.getByText('Latest', { exact: true })).toBeVisible();
    await expect(control(page, '← Back')).toBeVisible();
    await expectScreenTitle(page);
    await checkScreen(page, "What's New");
  });
});

/** Where an element sits on the page (not the viewport, which scrolls), and its size. */
async function pageBox(locator: ReturnType<Page['getByRole']>) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x + window.scrollX, y: r.y + window.scrollY, w: r.width, h: r.height };
  });
}

test.describe('Settings and Confirm New Email', () => {
  test('Settings: every card, its messages and busy labels', async ({ page }) => {
    const member = await signUpVerified(ORIGIN, await spareCode(), 'settings');
    await logInThroughUi(page, member.email, member.password);
    await control(page, 'View Profile').click();
    await control(page.getByRole('main'), 'Settings').click();
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();
    await expectScreenTitle(page, 'Settings · Gatehouse');
    for (const name of [
      'Password',
      'Two-Step Sign-In',
      'Passkeys',
      'Email',
      'Signed-In Devices',
      'Recent Activity',
      'Your Data',
    ]) {
      await expect(
        page.getByRole('region', { name }).getByRole('heading', { level: 2, name }),
      ).toBeVisible();
    }
    await expect(page.getByText('This device')).toBeVisible();
    await expect(page.getByText(/^Signed in from Chrome on Linux, /).first()).toBeVisible();
    await checkScreen(page, 'Settings');

    // Password: the browser's checks, then the server's answer to a wrong current password.
    const password = page.getByRole('region', { name: 'Password' });
    const next = newPassword();
    await password.getByLabel('Current Password', { exact: true }).fill('not-my-password');
    await password.getByLabel('New Password', { exact: true }).fill(next);
    await password.getByLabel('Confirm New Password', { exact: true }).fill(`${next}x`);
    await password.getByRole('button', { name: 'Change Password' }).click();
    await expect(page.getByText('Passwords do not match')).toBeVisible();
    await password.getByLabel('Confirm New Password', { exact: true }).fill(next);
    const hold = await holdRequests(page, `/api/collections/users/records/${member.id}`);
    await password.getByRole('button', { name: 'Change Password' }).click();
    await hold.arrived;
    await expect(password.getByRole('button', { name: 'Changing...' })).toBeDisabled();
    await hold.release();
    await expect(page.getByText('Current password is incorrect.')).toBeVisible();
    await checkScreen(page, 'Settings: wrong current password');

    // Email: the link is sent.
    const email = page.getByRole('region', { name: 'Email' });
    const newEmail = uniqueEmail('settings-new');
    await email.getByLabel('New Email', { exact: true }).fill(newEmail);
    const sending = await holdRequests(page, '/api/collections/users/request-email-change');
    await email.getByRole('button', { name: 'Send Confirmation Link' }).click();
    await sending.arrived;
    await expect(email.getByRole('button', { name: 'Sending...' })).toBeDisabled();
    await sending.release();
    await expect(page.getByText(`Check ${newEmail} for a confirmation link.`)).toBeVisible();
    await checkScreen(page, 'Settings: confirmation link sent');
  });

  test('Settings: a busy label does not move the layout', async ({ page }) => {
    const member = await signUpVerified(ORIGIN, await spareCode(), 'busy');
    await logInThroughUi(page, member.email, member.password);
    for (const viewport of [
      { width: 360, height: 740 },
      { width: 1280, height: 800 },
    ]) {
      await page.setViewportSize(viewport);
      await page.goto('/settings');
      await page.getByLabel('New Email', { exact: true }).fill(uniqueEmail('busy'));
      const button = page.getByRole('button', { name: 'Send Confirmation Link' });
      const before = await pageBox(button);
      const hold = await holdRequests(page, '/api/collections/users/request-email-change');
      await button.click();
      await hold.arrived;
      const busy = await pageBox(page.getByRole('button', { name: 'Sending...' }));
      await hold.release();
      expect(busy, `${viewport.width} px`).toEqual(before);
    }
  });

  test('Confirm New Email: the screen, a bad link, and success counting down 3 seconds', async ({
    page,
  }) => {
    await page.goto('/confirm-email-change?token=not-a-real-token');
    await expect(page.getByRole('heading', { level: 1, name: 'Confirm New Email' })).toBeFocused();
    await expectScreenTitle(page, 'Confirm New Email · Gatehouse');
    await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('type', 'password');
    await checkScreen(page, 'Confirm New Email');
    await page.getByLabel('Password', { exact: true }).fill('whatever-password');
    await page.getByRole('button', { name: 'Confirm Email Change' }).click();
    await expect(page.getByText('This link is invalid or has expired.')).toBeVisible();
    await checkScreen(page, 'Confirm New Email: invalid link');

    const member = await signUpVerified(ORIGIN, await spareCode(), 'confirm');
    const newEmail = uniqueEmail('confirm-new');
    await fetch(`${ORIGIN}/api/collections/users/request-email-change`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: await logIn(ORIGIN, member),
      },
      body: JSON.stringify({ newEmail }),
    });
    const link = linkIn(
      await waitForMail(newEmail, EMAIL_CHANGE_SUBJECT),
      `${ORIGIN}/confirm-email-change?token=`,
    );
    await page.goto(link);
    await page.getByLabel('Password', { exact: true }).fill('not-my-password');
    await page.getByRole('button', { name: 'Confirm Email Change' }).click();
    await expect(page.getByText("That password isn't right.")).toBeVisible();
    await checkScreen(page, 'Confirm New Email: wrong password');

    const clock = await holdClock(page);
    await page.getByLabel('Password', { exact: true }).fill(member.password);
    const hold = await holdRequests(page, '/api/collections/users/confirm-email-change');
    await page.getByRole('button', { name: 'Confirm Email Change' }).click();
    await hold.arrived;
    await expect(page.getByRole('button', { name: 'Confirming...' })).toBeDisabled();
    await hold.release();
    await expect(
      page.getByText('Email changed. Please sign in with your new email.'),
    ).toBeVisible();
    await checkScreen(page, 'Confirm New Email: changed');
    await clock.advance(2_000);
    await expect(page.getByText(/\b1 second\b/)).toBeVisible();
    await expect(loginHeading(page)).toHaveCount(0);
    await clock.advance(1_000);
    await expectLoginScreen(page);
  });
});

test.describe("What's New when the release notes are empty or fail", () => {
  test('empty', async ({ page }) => {
    await page.route(
      (url) => url.pathname === '/changelog.json',
      (route) => route.fulfill({ json: [] }),
    );
    await logInThroughUi(page, initial.email, initial.password);
    await expect(page.getByText('New Update')).toHaveCount(0);
    await page.goto('/whats-new');
    await expect(page.getByText('No updates yet. Check back soon!')).toBeVisible();
    await checkScreen(page, "What's New: empty");
  });

  for (const [what, answer] of [
    ['a server error', { status: 500, body: 'oops' }],
    ['a malformed file', { status: 200, json: [{ version: 3 }] }],
  ] as const) {
    test(`error card on ${what}`, async ({ page }) => {
      await page.route(
        (url) => url.pathname === '/changelog.json',
        (route) => route.fulfill(answer),
      );
      await logInThroughUi(page, initial.email, initial.password);
      await page.clock.install();
      await page.goto('/whats-new');
      const card = page.getByText('Error Loading Updates');
      // The query retries with backoff first: move the page's clock on until the card shows.
      await expect(async () => {
        await page.clock.runFor(5_000);
        await expect(card).toBeVisible({ timeout: 250 });
      }).toPass({ timeout: 20_000 });
      await expect(
        page.getByText("We couldn't load the latest updates. Please try again later."),
      ).toBeVisible();
      await checkScreen(page, "What's New: error");
    });
  }
});

test.describe('sessions, redirects and titles', () => {
  test('reloading a signed-in screen never shows the login screen', async ({ page }) => {
    await page.addInitScript(() => {
      const w = window as unknown as { sawLogin: boolean };
      w.sawLogin = false;
      const look = () => {
        const headings = [...document.querySelectorAll('h1, h2')];
        if (
          window.location.pathname === '/' ||
          headings.some((h) => h.textContent?.trim() === 'Welcome back')
        ) {
          w.sawLogin = true;
        }
      };
      new MutationObserver(look).observe(document, {
        subtree: true,
        childList: true,
        characterData: true,
      });
    });
    await logInThroughUi(page, initial.email, initial.password);
    for (const path of ['/home', '/profile', '/whats-new']) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      for (let i = 0; i < 3; i++) {
        await page.reload();
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        await expect(page).toHaveURL((url) => url.pathname === path);
        const saw = await page.evaluate(
          () => (window as unknown as { sawLogin: boolean }).sawLogin,
        );
        expect(saw, `reloading ${path} showed the login screen`).toBe(false);
      }
    }
    await expectHomeScreenAfter(page);
  });

  test('signed-in visitors are sent to /home; visitors to / from signed-in screens', async ({
    page,
  }) => {
    for (const path of ['/home', '/profile']) {
      await page.goto(path);
      await expectLoginScreen(page);
    }
    await logInThroughUi(page, initial.email, initial.password);
    for (const path of [
      '/',
      '/signup',
      '/signup?code=ABCD',
      '/forgot-password',
      '/reset-password?token=abc',
      '/verify-email?token=abc',
    ]) {
      await page.goto(path);
      await expectHomeScreen(page);
    }
  });

  test('every screen has its own page title', async ({ page }) => {
    const titles = new Map<string, string>();
    const visit = async (screen: string, path: string, heading: string | RegExp) => {
      await page.goto(path);
      await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
      titles.set(screen, await expectScreenTitle(page));
    };
    await visit('login', '/', 'Welcome back');
    await visit('sign-up', '/signup', /.+/);
    await visit('forgot password', '/forgot-password', /.+/);
    await visit('reset password', '/reset-password?token=abc', /.+/);
    await visit('verify email', '/verify-email?token=abc', 'Verification Failed');
    await visit('not found', '/nowhere', 'Not Found');
    await logInThroughUi(page, initial.email, initial.password);
    await visit('home', '/home', 'Welcome!');
    await visit('profile', '/profile', /.+/);
    await visit("what's new", '/whats-new', "What's New");
    await visit('settings', '/settings', 'Settings');
    await visit('confirm new email', '/confirm-email-change?token=abc', 'Confirm New Email');
    expect(titles.get('login')).toBe('Sign in · Gatehouse');
    const seen = [...titles.values()];
    expect(new Set(seen).size, `titles: ${JSON.stringify(Object.fromEntries(titles))}`).toBe(
      seen.length,
    );
  });
});

async function expectHomeScreenAfter(page: Page): Promise<void> {
  await page.goto('/home');
  await expectHomeScreen(page);
}

test.describe('keyboard only', () => {
  test('sign in, open the profile and copy an invite without a mouse', async ({
    page,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: ORIGIN });
    await page.goto('/');
    // A new screen puts focus on its heading, so the next Tab starts at the top of its content.
    await expect(page.getByRole('heading', { level: 1, name: 'Welcome back' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Email')).toBeFocused();
    await page.keyboard.type(initial.email);
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Password')).toBeFocused();
    await page.keyboard.type(initial.password);
    await page.keyboard.press('Enter');

    await expect(page.getByRole('heading', { level: 1, name: 'Welcome!' })).toBeFocused();
    const viewProfile = page.getByRole('button', { name: 'View Profile' });
    for (
      let i = 0;
      i < 10 && !(await viewProfile.evaluate((el) => el === document.activeElement));
      i++
    ) {
      await page.keyboard.press('Tab');
    }
    await expect(viewProfile).toBeFocused();
    await page.keyboard.press('Enter');

    await expect(page.getByRole('heading', { level: 1, name: 'Profile' })).toBeFocused();
    const copy = page.getByRole('button', { name: 'Copy Invite' }).first();
    for (let i = 0; i < 20 && !(await copy.evaluate((el) => el === document.activeElement)); i++) {
      await page.keyboard.press('Tab');
    }
    await expect(copy).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
      `${ORIGIN}/signup?code=`,
    );
  });
});

test.describe('keyboard only: Settings and Confirm New Email', () => {
  async function tabTo(page: Page, target: ReturnType<Page['getByRole']>, most = 30) {
    for (
      let i = 0;
      i < most && !(await target.evaluate((el) => el === document.activeElement));
      i++
    ) {
      await page.keyboard.press('Tab');
    }
    await expect(target).toBeFocused();
  }

  test('change the password and download the data without a mouse', async ({ page, browser }) => {
    const member = await signUpVerified(ORIGIN, await spareCode(), 'keys');
    const other = await browser.newContext({ baseURL: ORIGIN });
    try {
      await logInThroughUi(await other.newPage(), member.email, member.password);
      await logInThroughUi(page, member.email, member.password);
      await tabTo(page, page.getByRole('button', { name: 'View Profile' }));
      await page.keyboard.press('Enter');
      await expect(page.getByRole('heading', { level: 1, name: 'Profile' })).toBeFocused();
      await tabTo(page, page.getByRole('button', { name: 'Settings' }));
      await page.keyboard.press('Enter');
      await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeFocused();

      // From the heading, past "On this page" (a link a card) and the Profile card (its photo
      // buttons, Name and Save Profile), to the Password card's first field.
      await tabTo(page, page.getByLabel('Current Password'), 20);
      await page.keyboard.type(member.password);
      const next = newPassword();
      await page.keyboard.press('Tab');
      await expect(page.getByLabel('New Password', { exact: true })).toBeFocused();
      await page.keyboard.type(next);
      await page.keyboard.press('Tab');
      await expect(page.getByLabel('Confirm New Password')).toBeFocused();
      await page.keyboard.type(next);
      await page.keyboard.press('Enter');
      await expect(
        page.getByText('Password changed. Your other devices have been signed out.'),
      ).toBeVisible();

      await tabTo(page, page.getByRole('button', { name: 'Download My Data' }), 40);
      const downloading = page.waitForEvent('download');
      await page.keyboard.press('Enter');
      expect((await downloading).suggestedFilename()).toBe(`gatehouse-export-${member.id}.json`);
    } finally {
      await other.close();
    }
  });

  test('confirm an email change without a mouse', async ({ page }) => {
    await page.goto('/confirm-email-change?token=not-a-real-token');
    await expect(page.getByRole('heading', { level: 1, name: 'Confirm New Email' })).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(page.getByLabel('Password')).toBeFocused();
    await page.keyboard.type('whatever-password');
    await page.keyboard.press('Enter');
    await expect(page.getByText('This link is invalid or has expired.')).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Confirm Email Change' })).toBeFocused();
  });
});
