import { expect, test, type Page } from '@playwright/test';
import {
  inviteCodes,
  logIn,
  serverWithInitial,
  signUpUnverified,
  signUpVerified,
  turnOnTwoStep,
} from './support/api';
import { checkScreen } from './support/checks';
import { expectHomeScreen, logInThroughUi } from './support/ui';

/**
 * Home beside the spec's Welcome! (docs/decisions/0069): a new member's invites left with Copy
 * Link, who joined with their codes (arriving by themselves), the nudge to two-step sign-in or a
 * passkey; and the initial user's Getting Started, which ticks itself.
 */

const polish = serverWithInitial('polish');

/** Tab from where focus is until `name` has it (at most `most` presses). */
async function tabTo(page: Page, name: string, most = 20): Promise<void> {
  for (let i = 0; i < most; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    if (focused === name) return;
  }
  throw new Error(`"${name}" was not reached with Tab`);
}

test.describe('a new member', () => {
  test.use({ baseURL: polish.origin });

  test('sees their invites left, copies the link, sees who joined with it, and is nudged to protect the account', async ({
    page,
    context,
  }) => {
    test.setTimeout(240_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: polish.origin,
    });
    const member = await signUpVerified(polish.origin, await polish.spareCode(), 'home-new');
    const codes = await inviteCodes(polish.origin, member);
    expect(codes.length).toBeGreaterThan(1);
    await logInThroughUi(page, member.email, member.password);

    const nudge = page.getByRole('region', { name: 'Protect Your Account' });
    await expect(nudge).toContainText('Turn on two-step sign-in or add a passkey');
    const invites = page.getByRole('region', { name: 'Your Invites' });
    await expect(invites).toContainText(`You have ${codes.length} invite codes left.`);
    await expect(invites).toContainText(
      'Nobody has joined with your codes yet. When someone does, they show here.',
    );
    await checkScreen(page, 'Home of a new member', { every: true });

    // By keyboard: from the heading (focused when Home opens) to Copy Link, then Enter.
    await expect(page.getByRole('heading', { level: 1, name: 'Welcome!' })).toBeFocused();
    await tabTo(page, 'Copy Link');
    await page.keyboard.press('Enter');
    await expect(invites.getByRole('button', { name: 'Copied' })).toBeFocused();
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(link).toBe(`${polish.origin}/signup?code=${encodeURIComponent(codes[0]!)}`);
    await expect(invites).toContainText('Link copied');

    // Someone signs up with the copied link's code: they show here without a reload.
    const code = new URL(link).searchParams.get('code')!;
    await signUpVerified(polish.origin, code, 'home-joiner');
    const joined = invites.getByRole('list', { name: 'Joined Recently' });
    await expect(joined.getByRole('listitem')).toHaveCount(1);
    await expect(joined.getByRole('listitem')).toContainText('Someone who has not added a name');
    await expect(joined.getByRole('listitem')).toContainText('Joined just now');
    await expect(invites).toContainText(
      codes.length - 1 === 1
        ? 'You have 1 invite code left.'
        : `You have ${codes.length - 1} invite codes left.`,
    );
    await checkScreen(page, 'Home with someone who joined', { every: true });

    // The nudge leads to Settings, by keyboard too.
    await page.getByRole('heading', { level: 1, name: 'Welcome!' }).focus();
    await tabTo(page, 'Open Settings');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Two-Step Sign-In' })).toBeVisible();

    // Once two-step sign-in is on, the nudge is gone.
    await turnOnTwoStep(polish.origin, member);
    await page.goto('/home');
    await expectHomeScreen(page);
    await expect(invites).toBeVisible();
    await expect(page.getByRole('region', { name: 'Your Invites' })).toContainText(
      'Joined just now',
    );
    await expect(nudge).toHaveCount(0);
  });
});

test.describe('the initial user', () => {
  // The server with no mail server: its mail is printed to its console.
  const logs = serverWithInitial('logs');
  test.use({ baseURL: logs.origin });

  /** Sets the backup schedule through the API ('' for none), as a fresh sign-in may. */
  async function setBackupSchedule(cron: string): Promise<void> {
    const token = await logIn(logs.origin, logs.initial);
    const res = await fetch(`${logs.origin}/api/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: token },
      body: JSON.stringify({ backups: { cron } }),
    });
    expect(res.status).toBe(200);
  }

  test.afterEach(async () => {
    await setBackupSchedule('');
  });

  test('Getting Started ticks itself: members joined, then backups scheduled; mail still to do', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    await setBackupSchedule('');
    await logInThroughUi(page, logs.initial.email, logs.initial.password);
    const start = page.getByRole('region', { name: 'Getting Started' });
    const steps = start.getByRole('list', { name: 'First steps' });
    const step = (name: string) => steps.getByRole('listitem').filter({ hasText: name });
    await expect(step('Set up mail')).toContainText('To do');
    await expect(step('Set up mail')).toContainText(
      'Mail is not sent yet: the server prints each mail to its console.',
    );
    await expect(step('Schedule backups')).toContainText('To do');
    await checkScreen(page, 'Getting Started with steps to do', { every: true });

    // Someone joins with one of the initial user's codes: ticked without a reload.
    const [code] = await inviteCodes(logs.origin, logs.initial);
    await signUpUnverified(logs.origin, code!, 'home-first-member');
    await expect(step('Invite your first members')).toContainText('Done');
    await expect(step('Invite your first members')).toContainText(
      'Someone has joined with one of your invite codes.',
    );

    // Backups: the step's link, by keyboard, to the console's Backups; a schedule saved there.
    await step('Schedule backups').getByRole('link', { name: 'Backups' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Backups' })).toBeVisible();
    await page.getByLabel('Schedule (cron expression, UTC)').fill('0 3 * * *');
    await page.getByRole('button', { name: 'Save Schedule' }).click();
    await expect(page.getByText('Backup schedule saved.')).toBeVisible();

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Home', exact: true })
      .click();
    await expectHomeScreen(page);
    await expect(step('Schedule backups')).toContainText('Done');
    await expect(step('Schedule backups')).toContainText(
      'Backups are made automatically on a schedule.',
    );
    await expect(step('Set up mail')).toContainText('To do');
    await expect(start).toContainText('1 of 3 still to do');
    await checkScreen(page, 'Getting Started with one step to do', { every: true });

    // The mail step leads to the console's Mail Server settings.
    await step('Set up mail').getByRole('link', { name: 'Mail Server settings' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'App Settings' })).toBeVisible();
    await expect(page).toHaveURL((url) => url.pathname === '/admin/settings');
  });
});
