import { expect, test, type Page } from '@playwright/test';
import { serverWithInitial } from './support/api';
import { checkScreen } from './support/checks';
import { logInThroughUi, openConsole, openConsoleSection } from './support/ui';

/**
 * The console's Logs, Crons and Mail screens in the browser, against the real server of a
 * community with no mail server (its mail goes to the server's console): requests answered with
 * errors show in the chart and the table, a filter by status narrows both, a filter the server
 * cannot read says why by the box, an entry opens with every field; a job runs now and its run
 * shows in the log; Mail says where mail goes.
 */

const { origin: ORIGIN, initial } = serverWithInitial('logs');
test.use({ baseURL: ORIGIN });
// Each test scans several states with axe four times: room on a busy machine.
test.describe.configure({ timeout: 360_000 });

/** Wrong passwords: each sign-in attempt is answered 400, an error in the log. */
async function failedSignIns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${ORIGIN}/api/collections/users/auth-with-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identity: initial.email, password: 'not-the-password' }),
    });
    expect(res.status).toBe(400);
  }
}

function entriesTable(page: Page) {
  return page.getByRole('table', { name: 'Log entries' });
}

/** The Status column's cells of the table's rows. */
async function statuses(page: Page): Promise<string[]> {
  return entriesTable(page)
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => row.children[3]?.textContent ?? ''));
}

/** Whether the table shows the refused sign-ins (three at least) and nothing else. */
async function onlyRefusals(page: Page): Promise<boolean> {
  const shown = await statuses(page);
  return shown.length >= 3 && shown.every((status) => status === '400');
}

test('Logs: the chart shows the errors, a filter by status narrows the table, a bad filter says why, an entry opens', async ({
  page,
}) => {
  await failedSignIns(3);
  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleSection(page, 'Logs');

  // The chart: this hour's requests, the three refused sign-ins among its errors.
  const chart = page.getByRole('img', { name: /^Requests per hour/ });
  await expect(chart).toHaveAccessibleName(/: [\d,]+ requests, ([3-9]|\d\d+) errors\./);
  expect(await chart.locator('rect[data-errors]:not([data-errors="0"])').count()).toBeGreaterThan(
    0,
  );
  await expect(entriesTable(page)).toBeVisible();
  await checkScreen(page, 'Logs', { every: true });

  // By keyboard: the filter, then Enter.
  const filter = page.getByLabel('Filter', { exact: true });
  await filter.focus();
  await page.keyboard.type('data.status = 400');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL((url) => url.searchParams.get('filter') === 'data.status = 400');
  await expect.poll(() => onlyRefusals(page)).toBe(true);
  const refused = (await statuses(page)).length;
  await expect(page.getByText(`${refused} entries`, { exact: true })).toBeVisible();
  await expect(chart).toHaveAccessibleName(
    new RegExp(`: ${refused} requests, ${refused} errors\\.`),
  );

  // A row's every field, in a dialog that takes focus; Escape gives focus back to its button.
  const details = entriesTable(page).getByRole('button', { name: 'Details' }).first();
  await details.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Log Entry' });
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  await expect(dialog).toContainText('POST /api/collections/users/auth-with-password');
  await expect(dialog).toContainText('data.status');
  await expect(dialog).toContainText('data.userAgent');
  await expect(dialog).not.toContainText('not-the-password');
  await checkScreen(page, 'Logs, an entry open', { every: true });
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(details).toBeFocused();

  // A filter the server cannot read: its message by the box.
  await filter.fill('data.nope = 1');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(filter).toHaveAccessibleDescription(/This filter could not be read\.$/);
  await expect(filter).toHaveAttribute('aria-invalid', 'true');
  await expect(entriesTable(page)).toHaveCount(0);
  await checkScreen(page, 'Logs, a bad filter');

  // Quick filters instead: errors only, sign-ins (POST).
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.getByRole('checkbox', { name: 'Errors only (status 400 or more)' }).check();
  await page.getByLabel('Method').selectOption('POST');
  await expect(page).toHaveURL(
    (url) => url.searchParams.get('errors') === 'only' && url.searchParams.get('method') === 'POST',
  );
  await expect.poll(() => onlyRefusals(page)).toBe(true);
});

test('Crons: a job runs now, and its run shows in the log', async ({ page }) => {
  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleSection(page, 'Crons');
  const jobs = page.getByRole('list', { name: 'Jobs' });
  // By its name exactly: oidc_sessions_cleanup holds it too.
  const sessions = jobs
    .getByRole('listitem')
    .filter({ has: page.getByText('sessions_cleanup', { exact: true }) });
  await expect(sessions).toContainText('Every hour: 0 * * * *');
  await expect(jobs.getByRole('listitem')).toHaveCount(7);
  await checkScreen(page, 'Crons', { every: true });

  // By keyboard.
  await sessions.getByRole('button', { name: 'Run Now' }).focus();
  await page.keyboard.press('Enter');
  await expect(
    page
      .getByRole('status')
      .filter({ hasText: 'Started sessions_cleanup. Its run will be in the Logs when it ends.' }),
  ).toBeVisible();
  await checkScreen(page, 'Crons, a job started');

  // Its run, among the jobs' runs in the log.
  await page.getByRole('link', { name: 'Logs', exact: true }).last().click();
  await expect(page).toHaveURL((url) => url.searchParams.get('filter') === 'data.type = "cron"');
  // The run started here, not the hourly one (which a run at the turn of an hour also finds).
  const manual = 'data.type = "cron" && data.trigger = "manual"';
  await page.getByLabel('Filter', { exact: true }).fill(manual);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL((url) => url.searchParams.get('filter') === manual);
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(
      entriesTable(page).getByRole('row').filter({ hasText: 'Cron job sessions_cleanup' }),
    ).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 15_000 });
});

test('Mail: with no mail server, it says mail goes to the server’s console', async ({ page }) => {
  await logInThroughUi(page, initial.email, initial.password);
  await openConsole(page);
  await openConsoleSection(page, 'Mail');
  await expect(
    page.getByText(
      'No mail server is set up, so mail is not sent: the server prints each mail to its console instead.',
      { exact: false },
    ),
  ).toBeVisible();
  await expect(page.getByText(/^Loading/)).toHaveCount(0);
  await checkScreen(page, 'Mail, no mail server', { every: true });
});
