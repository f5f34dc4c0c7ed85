import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../../contract/logs';
import {
  type FakeRequest,
  type Handler,
  json,
  makeUser,
  noContent,
  pbError,
  signedInServer,
} from '../../test/fake-server';
import { expectFocus, renderApp } from '../../test/render-app';
import { cronInWords } from './cron-words';

const alice = makeUser({ isInitialUser: true });

function signedIn(routes: Record<string, Handler>) {
  return signedInServer(alice, routes, { operator: true });
}

/** A request's log entry as GET /api/logs answers one (contract/logs.ts). */
function entry(n: number, over: Partial<LogEntry['data']> = {}): LogEntry {
  const data = {
    auth: '',
    authId: '',
    execTime: 1.482,
    method: 'GET',
    remoteIP: '203.0.113.7',
    status: 200,
    type: 'request',
    url: '/api/invite-codes',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    ...over,
  };
  return {
    id: `00000000010${String(n).padStart(4, '0')}`,
    created: `2026-11-25 10:03:${String(n % 60).padStart(2, '0')}.512Z`,
    data,
    message: `${String(data.method)} ${String(data.url)}`,
    level: Number(data.status) >= 400 ? 8 : 0,
  };
}

const ROWS = [
  entry(1, { method: 'POST', url: '/api/collections/users/auth-with-password', status: 400 }),
  entry(2, { auth: 'users', authId: 'member000000007' }),
  {
    id: '000000000200000',
    created: '2026-11-25 10:00:00.100Z',
    data: {
      type: 'cron',
      job: 'sessions_cleanup',
      trigger: 'schedule',
      scheduled: '2026-11-25 10:00:00.000Z',
      execTime: 12.5,
      sessions: 3,
    },
    message: 'Cron job sessions_cleanup',
    level: 0,
  },
];

/** The hour the stats' filter starts at (`created >= "…"`), plus `hours`, as the server writes it. */
function hourAfter(req: FakeRequest, hours: number): string {
  const since = /created >= "([^"]+)"/.exec(req.query.get('filter') ?? '')?.[1] ?? '';
  const date = new Date(since.replace(' ', 'T'));
  return new Date(date.getTime() + hours * 3600_000).toISOString().replace('T', ' ');
}

/** GET /api/logs/stats: 40 requests two hours ago and 12 this hour; 5 and 3 of them errors. */
const stats: Handler = (req) => {
  const filter = req.query.get('filter') ?? '';
  if (filter.includes('nope')) return pbError(400, 'Invalid filter format.');
  const errors = filter.includes('data.status >= 400');
  return json(200, [
    { date: hourAfter(req, 21), total: errors ? 5 : 40 },
    { date: hourAfter(req, 23), total: errors ? 3 : 12 },
  ]);
};

const list: Handler = (req) => {
  if ((req.query.get('filter') ?? '').includes('nope')) {
    return pbError(400, 'Something went wrong while processing your request.');
  }
  const page = Number(req.query.get('page') ?? '1');
  const skip = req.query.get('skipTotal') === '1';
  return json(200, {
    page,
    perPage: 30,
    totalItems: skip ? -1 : 33,
    totalPages: skip ? -1 : 2,
    items: page === 1 ? ROWS : [entry(40)],
  });
};

const logsRoutes = { 'GET /api/logs': list, 'GET /api/logs/stats': stats };

// The screens load on first use (lazy routes): room for that on a busy machine.
describe('the console’s Logs', { timeout: 15_000 }, () => {
  it('is in the console’s navigation, with Crons', async () => {
    signedIn({ ...logsRoutes, 'GET /api/admin/members': () => json(200, { items: [] }) });
    const { user, router } = renderApp('/admin/security-log');
    const nav = await screen.findByRole('navigation', { name: 'Operator console' });
    await user.click(within(nav).getByRole('link', { name: 'Logs' }));
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Logs' }));
    expect(router.state.location.pathname).toBe('/admin/logs');
    expect(document.title).toBe('Logs · Gatehouse');
    expect(within(nav).getByRole('link', { name: 'Logs' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Crons' })).toHaveAttribute(
      'href',
      '/admin/crons',
    );
  });

  it('charts the last 24 hours’ requests and errors, said in words and in a table', async () => {
    const server = signedIn(logsRoutes);
    renderApp('/admin/logs');
    const chart = await screen.findByRole('img', { name: /^Requests per hour/ });
    expect(chart).toHaveAccessibleName(
      expect.stringMatching(
        /: 52 requests, 8 errors\. The busiest hour, starting .+, had 40 requests\.$/,
      ),
    );
    // 24 hours, each a bar of requests and one of errors: the errors' share is red.
    expect(chart.querySelectorAll('rect')).toHaveLength(48);
    expect(
      [...chart.querySelectorAll('rect[data-errors]')]
        .map((r) => r.getAttribute('data-errors'))
        .filter((n) => n !== '0'),
    ).toEqual(['5', '3']);
    const table = screen.getByRole('table', { name: 'Requests and errors per hour' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(25);
    expect(rows.at(-1)).toHaveTextContent(/12\s*3$/);
    expect(screen.getByText('40 requests in the busiest hour')).toBeInTheDocument();
    // Both counts asked for requests since the chart's first hour; the errors' with status >= 400.
    const filters = server.to('GET', '/api/logs/stats').map((r) => r.query.get('filter'));
    expect(filters).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^data\.type = "request" && created >= "\d{4}-\d\d-\d\d \d\d:00:00\.000Z"$/,
        ),
        expect.stringMatching(
          /^data\.type = "request" && created >= "[^"]+" && data\.status >= 400$/,
        ),
      ]),
    );
  });

  it('lists entries newest first: time, method, path, status, duration and member', async () => {
    const server = signedIn(logsRoutes);
    const { user } = renderApp('/admin/logs');
    const table = await screen.findByRole('table', { name: 'Log entries' });
    expect(await screen.findByText('33 entries')).toBeInTheDocument();
    const [head, failed, member, cron] = within(table).getAllByRole('row');
    expect(
      within(head!)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual([
      'Time↓, newest first: show oldest first',
      'Method',
      'Path',
      'Status',
      'Duration',
      'Member',
      'Details',
    ]);
    expect(within(head!).getByRole('columnheader', { name: /Time/ })).toHaveAttribute(
      'aria-sort',
      'descending',
    );
    expect(failed).toHaveTextContent(
      /POST\s*\/api\/collections\/users\/auth-with-password\s*400\s*1\.5 ms/,
    );
    expect(within(member!).getByRole('link', { name: 'member000000007' })).toHaveAttribute(
      'href',
      '/admin/members/member000000007',
    );
    // A job's run: its message as the path, no method nor status, how long it took.
    expect(cron).toHaveTextContent(/—NoneCron job sessions_cleanup—None13 ms—None/);
    expect(server.to('GET', '/api/logs')[0]!.query.get('sort')).toBe('-created');

    // Oldest first, from the first page.
    await user.click(within(head!).getByRole('button', { name: /^Time/ }));
    await waitFor(() =>
      expect(server.to('GET', '/api/logs').at(-1)!.query.get('sort')).toBe('created'),
    );
    expect(
      within(screen.getByRole('table', { name: 'Log entries' })).getByRole('columnheader', {
        name: /Time/,
      }),
    ).toHaveAttribute('aria-sort', 'ascending');

    // The next page asks without counting again.
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByText(/31–31 of 33 · Page 2 of 2/);
    const last = server.to('GET', '/api/logs').at(-1)!;
    expect([last.query.get('page'), last.query.get('skipTotal')]).toEqual(['2', '1']);
  });

  it('a row’s Details shows every field; Escape closes it and focus goes back', async () => {
    signedIn(logsRoutes);
    const { user } = renderApp('/admin/logs');
    const table = await screen.findByRole('table', { name: 'Log entries' });
    const button = within(within(table).getAllByRole('row')[2]!).getByRole('button', {
      name: 'Details',
    });
    expect(button).toHaveAccessibleDescription('/api/invite-codes');
    await user.click(button);
    const dialog = await screen.findByRole('dialog', { name: 'Log Entry' });
    expect(dialog).toHaveAccessibleDescription('GET /api/invite-codes');
    await expectFocus(within(dialog).getByRole('button', { name: 'Close' }));
    const fields = within(dialog)
      .getAllByRole('term')
      .map((t) => t.textContent);
    expect(fields).toEqual([
      'ID',
      'Time',
      'Level',
      'Message',
      'Signed in asdata.auth',
      'Memberdata.authId',
      'Duration (ms)data.execTime',
      'Methoddata.method',
      'Addressdata.remoteIP',
      'Statusdata.status',
      'Typedata.type',
      'Pathdata.url',
      'Browserdata.userAgent',
    ]);
    expect(dialog).toHaveTextContent('000000000100002');
    expect(dialog).toHaveTextContent('2026-11-25 10:03:02.512Z');
    expect(dialog).toHaveTextContent('Info (0)');
    expect(dialog).toHaveTextContent('203.0.113.7');
    expect(dialog).toHaveTextContent('Firefox/133.0');
    expect(within(dialog).getByRole('link', { name: 'member000000007' })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    await waitFor(() => expect(button).toHaveFocus());
  });

  it('a filter the server cannot read: its message by the box, and no rows', async () => {
    const server = signedIn(logsRoutes);
    const { user, router } = renderApp('/admin/logs');
    await screen.findByRole('table', { name: 'Log entries' });
    await user.type(screen.getByLabelText('Filter'), 'nope =');
    await user.click(screen.getByRole('button', { name: 'Apply' }));
    const box = screen.getByLabelText('Filter');
    await waitFor(() =>
      expect(box).toHaveAccessibleDescription(/This filter could not be read\.$/),
    );
    expect(box).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('alert')).toHaveTextContent('This filter could not be read.');
    expect(screen.queryByRole('table', { name: 'Log entries' })).toBeNull();
    expect(screen.getByText(/No entries: the filter could not be read/)).toBeInTheDocument();
    expect(router.state.location.search).toEqual({ filter: 'nope =' });
    expect(server.to('GET', '/api/logs').at(-1)!.query.get('filter')).toBe('(nope =)');

    // Cleared, the log is back.
    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(await screen.findByRole('table', { name: 'Log entries' })).toBeInTheDocument();
    expect(screen.getByLabelText('Filter')).toHaveValue('');
    expect(screen.getByLabelText('Filter')).not.toHaveAttribute('aria-invalid');
  });

  it('quick filters: errors only and a method, with the operator’s own filter, for the chart too', async () => {
    const server = signedIn(logsRoutes);
    const { user, router } = renderApp('/admin/logs?filter=data.url%20~%20%22admin%22');
    await screen.findByRole('table', { name: 'Log entries' });
    expect(screen.getByLabelText('Filter')).toHaveValue('data.url ~ "admin"');
    await user.click(screen.getByRole('checkbox', { name: 'Errors only (status 400 or more)' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Method' }), 'POST');
    await waitFor(() =>
      expect(server.to('GET', '/api/logs').at(-1)!.query.get('filter')).toBe(
        '(data.url ~ "admin") && data.status >= 400 && data.method = "POST"',
      ),
    );
    expect(router.state.location.search).toEqual({
      filter: 'data.url ~ "admin"',
      errors: 'only',
      method: 'POST',
    });
    expect(server.to('GET', '/api/logs/stats').at(-1)!.query.get('filter')).toMatch(
      /&& \(\(data\.url ~ "admin"\) && data\.status >= 400 && data\.method = "POST"\)$/,
    );
  });
});

describe('the console’s Crons', { timeout: 15_000 }, () => {
  const jobs = [
    { id: 'challenges_cleanup', expression: '10 * * * *' },
    { id: 'logs_retention', expression: '40 */6 * * *' },
    { id: 'sessions_cleanup', expression: '0 * * * *' },
    { id: '__pbAutoBackup__', expression: '0 3 * * 1-5' },
  ];

  it('lists the jobs with their schedules in words; Run Now starts one and says so', async () => {
    const server = signedIn({
      'GET /api/crons': () => json(200, jobs),
      'POST /api/crons/sessions_cleanup': () => noContent(),
      'POST /api/crons/logs_retention': () => pbError(404, 'Missing or invalid cron job.'),
    });
    const { user } = renderApp('/admin/crons');
    await expectFocus(screen.findByRole('heading', { level: 1, name: 'Crons' }));
    expect(document.title).toBe('Crons · Gatehouse');
    const items = within(await screen.findByRole('list', { name: 'Jobs' })).getAllByRole(
      'listitem',
    );
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringContaining('challenges_cleanupEvery hour at :10: 10 * * * *'),
      expect.stringContaining('logs_retentionEvery 6 hours at :40: 40 */6 * * *'),
      expect.stringContaining('sessions_cleanupEvery hour: 0 * * * *'),
      // Not one that reads easily: the expression alone.
      expect.stringContaining('__pbAutoBackup__Schedule: 0 3 * * 1-5'),
    ]);

    const run = within(items[2]!).getByRole('button', { name: 'Run Now' });
    expect(run).toHaveAccessibleDescription('sessions_cleanup');
    await user.click(run);
    expect(
      await screen.findByText(
        'Started sessions_cleanup. Its run will be in the Logs when it ends.',
      ),
    ).toBeInTheDocument();
    expect(server.to('POST', '/api/crons/sessions_cleanup')).toHaveLength(1);

    // A refusal is said as the server says it.
    await user.click(within(items[1]!).getByRole('button', { name: 'Run Now' }));
    expect(await screen.findByText('This job no longer exists.')).toBeInTheDocument();
    expect(screen.getByText('This job no longer exists.').closest('[role="alert"]')).not.toBeNull();
  });

  it.each([
    ['* * * * *', 'Every minute'],
    ['*/15 * * * *', 'Every 15 minutes'],
    ['0 * * * *', 'Every hour'],
    ['@hourly', 'Every hour'],
    ['30 3 * * *', 'Every day at 03:30 UTC'],
    ['@daily', 'Every day at 00:00 UTC'],
    ['0 9 * * 1', 'Every Monday at 09:00 UTC'],
    ['0 0 1 * *', 'On the 1st of every month at 00:00 UTC'],
    ['15 4 22 * *', 'On the 22nd of every month at 04:15 UTC'],
    ['* * * * * *', 'Every second'],
    ['0 10 * * * *', 'Every hour at :10'],
    ['0 3 * * 1-5', null],
    ['0 0 1 1 *', null],
  ])('says %j as %j', (expression, words) => {
    expect(cronInWords(expression)).toBe(words);
  });
});

describe('the console’s Mail', { timeout: 15_000 }, () => {
  const outbox = () =>
    json(200, {
      page: 1,
      perPage: 30,
      items: [],
      stats: { sentLast24h: 0, failedLast24h: 0, queued: 0, failing: 0 },
    });
  const settings = (enabled: boolean) => () => json(200, { smtp: { enabled } });
  const NOTE =
    /No mail server is set up, so mail is not sent: the server prints each mail to its console instead\./;

  it('says mail goes to the server’s console when no mail server is set up', async () => {
    signedIn({ 'GET /api/admin/outbox': outbox, 'GET /api/settings': settings(false) });
    renderApp('/admin/mail');
    expect(await screen.findByText(NOTE)).toBeInTheDocument();
  });

  it('says nothing of it with a mail server', async () => {
    const server = signedIn({
      'GET /api/admin/outbox': outbox,
      'GET /api/settings': settings(true),
    });
    renderApp('/admin/mail');
    await screen.findByText('No mail is waiting. All sent.');
    await waitFor(() => expect(server.to('GET', '/api/settings')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByText(NOTE)).toBeNull();
  });
});
