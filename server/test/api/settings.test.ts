import type PocketBase from 'pocketbase';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG, PATHS } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import { jwtPayload } from '../support/http.js';
import { CONFIRM_IT_IS_YOU, staleSession } from '../support/reauth.js';
import { sdkClient, sdkError } from '../support/sdk.js';
import {
  DATABASES,
  startTestServer,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';

/**
 * The app's settings through the official SDK (pb.settings): PocketBase's sections and messages,
 * Gatehouse's own section, the fields the environment sets, and changes that every instance uses
 * without a restart (docs/decisions/0054).
 */

const SAVE_FAILED = 'An error occurred while saving the new settings.';
const TEST_FAILED = 'Failed to send the test email.';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The whole security log's entries of one type, newest first, as an operator reads them. */
async function logged(t: TestServer, token: string, type: string, member: string) {
  const res = await t.get(
    `/api/admin/security-events?type=${type}&member=${encodeURIComponent(member)}`,
    token,
  );
  expect(res.status).toBe(200);
  return res.body.items as Array<{
    type: string;
    member: string;
    actor: { id: string; email: string | null } | null;
    detail: Record<string, unknown>;
  }>;
}

/** What the default test server's environment sets (support/server.ts: APP_URL, SMTP_URL, MAIL_FROM). */
const LOCKED_BY_TEST_ENV = [
  'meta.appURL',
  'meta.senderName',
  'meta.senderAddress',
  'smtp.enabled',
  'smtp.host',
  'smtp.port',
  'smtp.username',
  'smtp.password',
  'smtp.authMethod',
  'smtp.tls',
  'smtp.localName',
];

/** Asks `read` until it gives `expected` (another instance hears of a change within moments). */
async function eventually<T>(read: () => Promise<T>, expected: T, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < end) {
    await sleep(50);
    last = await read();
  }
  return last;
}

describe.each(DATABASES)('app settings on %s', (db) => {
  let t: TestServer;
  let operator: User;
  let pb: PocketBase;

  beforeAll(async () => {
    t = await startTestServer({ db });
    operator = await t.initialUser();
    pb = sdkClient(t.url, operator.token);
  });
  afterAll(() => t?.close());

  it("an operator reads them: PocketBase's sections, Gatehouse's own, what the environment locks, no SMTP password", async () => {
    const settings = await pb.settings.getAll();
    expect(Object.keys(settings)).toEqual([
      'smtp',
      'backups',
      'meta',
      'batch',
      'logs',
      'gatehouse',
      'lockedByEnv',
    ]);
    expect(settings.smtp).toEqual({
      enabled: true,
      port: t.mail.port,
      host: '127.0.0.1',
      username: '',
      authMethod: '',
      tls: false,
      localName: '',
    });
    expect(settings.meta).toEqual({
      appName: 'Gatehouse',
      appURL: 'http://app.test',
      senderName: 'Gatehouse',
      senderAddress: 'no-reply@app.test',
    });
    expect(settings.backups).toEqual({ cron: '', cronMaxKeep: 3 });
    expect(settings.batch).toEqual({ enabled: false, maxRequests: 50, timeout: 3, maxBodySize: 0 });
    expect(settings.logs).toEqual({ maxDays: 5 });
    expect(settings.gatehouse).toEqual({
      invitesPerMember: 5,
      sessionMaxDays: 30,
      auditRetentionDays: 90,
    });
    expect([...settings.lockedByEnv].sort()).toEqual([...LOCKED_BY_TEST_ENV].sort());
  });

  it('guests get 401, members who are not operators 403, in PocketBase’s envelope', async () => {
    const member = await t.verifiedUser();
    const guest = sdkClient(t.url);
    const asMember = sdkClient(t.url, member.token);
    for (const call of [
      (c: PocketBase) => c.settings.getAll(),
      (c: PocketBase) => c.settings.update({ meta: { appName: 'Mine' } }),
      (c: PocketBase) => c.settings.testEmail('users', member.email, 'verification'),
    ]) {
      const asGuest = await sdkError(call(guest));
      expect(asGuest.response).toEqual({ data: {}, message: MSG.needsAuth, status: 401 });
      const refused = await sdkError(call(asMember));
      expect(refused.status).toBe(403);
      expect(refused.response).toEqual({
        data: {},
        message: 'The authorized record is not allowed to perform this action.',
        status: 403,
      });
    }
    expect((await pb.settings.getAll()).meta.appName).toBe('Gatehouse');
  });

  it('a change takes effect at once: a new member starts with the invite codes the setting says, and sessions last what it says', async () => {
    const changed = await pb.settings.update({
      gatehouse: { invitesPerMember: 2, sessionMaxDays: 7 },
    });
    expect(changed.gatehouse).toEqual({
      invitesPerMember: 2,
      sessionMaxDays: 7,
      auditRetentionDays: 90,
    });
    const member = await t.verifiedUser();
    const codes = await t.get(PATHS.codes, member.token);
    expect(codes.status).toBe(200);
    expect(codes.body.codes).toHaveLength(2);
    const sid = jwtPayload(member.token).sid as string;
    const session = await withDatabase(t, (d) =>
      d
        .selectFrom('sessions')
        .select(['created', 'expires'])
        .where('id', '=', sid)
        .executeTakeFirstOrThrow(),
    );
    const at = (text: string) => Date.parse(text.replace(' ', 'T'));
    expect(Math.round((at(session.expires) - at(session.created)) / 86_400_000)).toBe(7);
    await pb.settings.update({ gatehouse: { invitesPerMember: 5, sessionMaxDays: 30 } });
  });

  it("a new name is the one members meet: the authenticator app's issuer, the passkey's relying party, and a password that is the name is refused", async () => {
    const member = await t.verifiedUser();
    await pb.settings.update({ meta: { appName: 'Harbour' } });
    try {
      const setup = await t.post(PATHS.totpSetup, {}, member.token);
      expect(setup.status).toBe(200);
      const uri = new URL(setup.body.uri);
      expect(uri.searchParams.get('issuer')).toBe('Harbour');
      expect(decodeURIComponent(uri.pathname)).toBe(`/Harbour:${member.email}`);
      const options = await t.post(PATHS.passkeyOptions, {}, member.token);
      expect(options.status).toBe(200);
      expect(options.body.rp.name).toBe('Harbour');
      const refused = await t.signUp(await t.newCode(), uniqueEmail('named'), 'Harbour2026');
      expect(refused.status).toBe(400);
      expect(refused.body.data.password.code).toBe('validation_password_too_common');
    } finally {
      await pb.settings.update({ meta: { appName: 'Gatehouse' } });
    }
  });

  it('a field the environment sets is shown, and a change to it is refused with a field error; nothing else of the request is saved', async () => {
    const refused = await sdkError(
      pb.settings.update({ meta: { appName: 'Harbour' }, smtp: { host: 'mail.example.com' } }),
    );
    expect(refused.status).toBe(400);
    expect(refused.response).toEqual({
      data: {
        smtp: {
          host: {
            code: 'validation_locked_by_env',
            message: "Set by SMTP_URL in the server's environment: change it there.",
          },
        },
      },
      message: SAVE_FAILED,
      status: 400,
    });
    const after = await pb.settings.getAll();
    expect(after.meta.appName).toBe('Gatehouse');
    expect(after.smtp.host).toBe('127.0.0.1');
    // Sending back what GET showed changes nothing and is no error (a form sends every field).
    const same = await pb.settings.update({ ...after, meta: { ...after.meta } });
    expect(same.smtp).toEqual(after.smtp);
  });

  it("bad values get PocketBase's field errors, nested as the settings are, and nothing is saved", async () => {
    const refused = await sdkError(
      pb.settings.update({
        meta: { appName: '' },
        backups: { cron: 'every day', cronMaxKeep: 0 },
        logs: { maxDays: -1 },
        gatehouse: { sessionMaxDays: 0, invitesPerMember: 3 },
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.response).toEqual({
      data: {
        meta: { appName: { code: 'validation_required', message: 'Cannot be blank.' } },
        backups: {
          cron: {
            code: 'validation_invalid_cron',
            message:
              'Invalid cron expression - must be a valid macro or to have exactly 5 space separated segments.',
          },
          cronMaxKeep: { code: 'validation_required', message: 'Cannot be blank.' },
        },
        logs: {
          maxDays: {
            code: 'validation_min_greater_equal_than_required',
            message: 'Must be no less than 0.',
            params: { threshold: 0 },
          },
        },
        gatehouse: {
          sessionMaxDays: {
            code: 'validation_number_out_of_range',
            message: 'Must be a whole number from 1 to 3650.',
            params: { min: 1, max: 3650 },
          },
        },
      },
      message: SAVE_FAILED,
      status: 400,
    });
    const after = await pb.settings.getAll();
    expect(after.gatehouse.invitesPerMember).toBe(5);
    expect(after.meta.appName).toBe('Gatehouse');
    // A value of the wrong JSON type makes the body unreadable, as in PocketBase.
    const wrongType = await sdkError(pb.settings.update({ logs: { maxDays: '7' } }));
    expect(wrongType.response).toEqual({ data: {}, message: MSG.load, status: 400 });
    // A schedule PocketBase takes is taken.
    const scheduled = await pb.settings.update({ backups: { cron: '0 3 * * *', cronMaxKeep: 2 } });
    expect(scheduled.backups).toEqual({ cron: '0 3 * * *', cronMaxKeep: 2 });
    await pb.settings.update({ backups: { cron: '' } });
  });

  it('a change needs a fresh session ("Confirm it\'s you"); reading does not', async () => {
    const token = await t.tokenFor(operator);
    await staleSession(t, token);
    const stale = sdkClient(t.url, token);
    expect((await stale.settings.getAll()).meta.appName).toBe('Gatehouse');
    const refused = await sdkError(stale.settings.update({ logs: { maxDays: 9 } }));
    expect(refused.status).toBe(403);
    expect(refused.message).toBe(CONFIRM_IT_IS_YOU);
    expect((await pb.settings.getAll()).logs.maxDays).toBe(5);
  });

  it("a change and a test email are in the operator's security log: the fields changed by name, the address and template; a refused change or one that changes nothing is not", async () => {
    const before = (await logged(t, operator.token, 'admin_settings_changed', operator.id)).length;
    await pb.settings.update({
      meta: { appName: 'Harbour' },
      logs: { maxDays: 6 },
      gatehouse: { auditRetentionDays: 90 },
    });
    const changes = await logged(t, operator.token, 'admin_settings_changed', operator.id);
    expect(changes).toHaveLength(before + 1);
    // The field sent with its current value (auditRetentionDays) did not change: not named.
    expect(changes[0]).toMatchObject({
      member: operator.id,
      actor: { id: operator.id, email: operator.email },
      detail: { actor: operator.id, fields: 'meta.appName, logs.maxDays' },
    });
    expect(JSON.stringify(changes[0])).not.toContain('Harbour');

    // Refused (a bad value, a field the environment sets) or no change at all: nothing recorded.
    await sdkError(pb.settings.update({ meta: { appName: '' } }));
    await sdkError(pb.settings.update({ smtp: { host: 'mail.example.com' } }));
    await pb.settings.update({ meta: { appName: 'Harbour' } });
    expect(await logged(t, operator.token, 'admin_settings_changed', operator.id)).toHaveLength(
      before + 1,
    );
    await pb.settings.update({ meta: { appName: 'Gatehouse' }, logs: { maxDays: 5 } });

    const to = uniqueEmail('log-test');
    await pb.settings.testEmail('users', to, 'password-reset');
    await t.mail.waitForMailTo(to, 'Reset your Gatehouse password');
    const [sent] = await logged(t, operator.token, 'admin_test_mail', operator.id);
    expect(sent).toMatchObject({
      actor: { id: operator.id },
      detail: { actor: operator.id, to, template: 'password-reset' },
    });
    // The operator sees both in their own security events too.
    const own = await t.get(`${PATHS.securityEvents}?perPage=5`, operator.token);
    expect(own.body.items.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['admin_test_mail', 'admin_settings_changed']),
    );
  });

  it("the test email's form gets PocketBase's field errors", async () => {
    const refused = await sdkError(pb.settings.testEmail('posts', 'not-an-email', 'newsletter'));
    expect(refused.status).toBe(400);
    expect(refused.response).toEqual({
      data: {
        collection: {
          code: 'validation_invalid_auth_collection',
          message: 'Must be a valid auth collection id or name.',
        },
        email: { code: 'validation_is_email', message: 'Must be a valid email address.' },
        template: { code: 'validation_in_invalid', message: 'Must be a valid value.' },
      },
      message: TEST_FAILED,
      status: 400,
    });
    const blank = await sdkError(pb.settings.testEmail('', '', ''));
    expect(Object.keys(blank.response.data).sort()).toEqual(['email', 'template']);
  });
});

describe.each(DATABASES)('SMTP and the sender set in the settings on %s', (db) => {
  let t: TestServer;
  let pb: PocketBase;

  beforeAll(async () => {
    // No SMTP_URL, MAIL_FROM or APP_URL: mail goes where the settings say (at first, the console).
    t = await startTestServer({ db, env: { SMTP_URL: '', MAIL_FROM: '', APP_URL: '' } });
    pb = sdkClient(t.url);
  });
  afterAll(() => t?.close());

  it('an operator points mail at an SMTP server and renames the sender: the test email arrives through it, and the password is never sent back', async () => {
    // The bootstrap sign-up's verification mail is printed (no SMTP yet); sign in unverified is
    // enough to be the initial user, who is an operator.
    const email = uniqueEmail('initial');
    const password = 'Tidal-Lantern-settings-1';
    const code = new URL(t.bootstrapLink!).searchParams.get('code')!;
    expect((await t.signUp(code, email, password)).status).toBe(200);
    const login = await t.login(email, password);
    expect(login.status).toBe(200);
    pb.authStore.save(login.body.token, login.body.record);

    const before = await pb.settings.getAll();
    expect(before.lockedByEnv).toEqual([]);
    expect(before.smtp.enabled).toBe(false);
    // The defaults follow the address: the server's own without APP_URL.
    expect(before.meta).toEqual({
      appName: 'Gatehouse',
      appURL: 'http://localhost:0',
      senderName: 'Gatehouse',
      senderAddress: 'no-reply@localhost',
    });

    const changed = await pb.settings.update({
      smtp: { enabled: true, host: '127.0.0.1', port: t.mail.port, password: 'sm7p-secret' },
      meta: {
        appName: 'Harbour',
        appURL: 'https://harbour.example.org/',
        senderName: 'Harbour Desk',
        senderAddress: 'desk@harbour.test',
      },
    });
    expect(changed.smtp).toEqual({
      enabled: true,
      port: t.mail.port,
      host: '127.0.0.1',
      username: '',
      authMethod: '',
      tls: false,
      localName: '',
    });
    expect(JSON.stringify(changed)).not.toContain('sm7p-secret');
    expect(JSON.stringify(await pb.settings.getAll())).not.toContain('sm7p-secret');
    // Stored sealed: a copy of the database does not show it either.
    const rows = await withDatabase(t, (d) => d.selectFrom('settings').selectAll().execute());
    expect(rows.map((r) => r.key)).toContain('smtp.password');
    expect(JSON.stringify(rows)).not.toContain('sm7p-secret');

    const to = uniqueEmail('test-mail');
    expect(await pb.settings.testEmail('users', to, 'verification')).toBe(true);
    const mail = await t.mail.waitForMailTo(to, 'Verify your Harbour email');
    expect(mail.headers['from']).toContain('Harbour Desk');
    expect(mail.headers['from']).toContain('desk@harbour.test');
    expect(mail.text).toContain('https://harbour.example.org/verify-email?token=');

    // Another template, after the address moved again.
    await pb.settings.update({ meta: { appURL: 'https://desk.harbour.example.org' } });
    await pb.settings.testEmail('_superusers', to, 'password-reset');
    const reset = await t.mail.waitForMailTo(to, 'Reset your Harbour password');
    expect(reset.text).toContain('https://desk.harbour.example.org/reset-password?token=');
    // The sign-in code mail, with a made-up code.
    await pb.settings.testEmail('', to, 'otp');
    const otp = await t.mail.waitForMailTo(to, 'Your Harbour sign-in code');
    expect(otp.text).toContain('12345678');
    // The console's own test mail (to the operator) carries the renamed app and its address too.
    await pb.send('/api/admin/test-mail', { method: 'POST', body: {} });
    const consoleMail = await t.mail.waitForMailTo(email, 'Harbour test email');
    expect(consoleMail.text).toContain('This is a test email from Harbour');
    expect(consoleMail.text).toContain('https://desk.harbour.example.org/');

    // A bad SMTP port is refused as PocketBase refuses it; turning SMTP off is taken.
    const refused = await sdkError(pb.settings.update({ smtp: { port: 70000 } }));
    expect(refused.response.data).toEqual({
      smtp: {
        port: {
          code: 'validation_max_less_equal_than_required',
          message: 'Must be no greater than 65535.',
          params: { threshold: 65535 },
        },
      },
    });
    const blankHost = await sdkError(pb.settings.update({ smtp: { host: '' } }));
    expect(blankHost.response.data).toEqual({
      smtp: { host: { code: 'validation_required', message: 'Cannot be blank.' } },
    });
  });

  it('the security log names the SMTP password among the fields changed, never its value', async () => {
    const operator = pb.authStore.record!.id;
    const changes = await logged(t, pb.authStore.token, 'admin_settings_changed', operator);
    const first = changes.at(-1)!;
    expect(first.detail.fields).toBe(
      'smtp.enabled, smtp.host, smtp.port, smtp.password, meta.appName, meta.appURL, ' +
        'meta.senderName, meta.senderAddress',
    );
    expect(JSON.stringify(changes)).not.toContain('sm7p-secret');
    // Cleared: named again, and the log still holds no value of it.
    await pb.settings.update({ smtp: { password: '' } });
    const [cleared] = await logged(t, pb.authStore.token, 'admin_settings_changed', operator);
    expect(cleared!.detail.fields).toBe('smtp.password');
    const rows = await withDatabase(t, (d) =>
      d.selectFrom('security_events').select('detail').execute(),
    );
    expect(JSON.stringify(rows)).not.toContain('sm7p-secret');
  });

  it.runIf(db === 'postgres')(
    'a second instance on the same database uses a change without a restart',
    async () => {
      const second = await startTestServer({
        db,
        shareDatabaseOf: t,
        env: { SMTP_URL: '', MAIL_FROM: '', APP_URL: '' },
      });
      try {
        const onSecond = sdkClient(second.url, pb.authStore.token);
        expect((await onSecond.settings.getAll()).meta.appName).toBe('Harbour');
        await pb.settings.update({ meta: { appName: 'Lighthouse' } });
        const seen = await eventually(
          async () => (await onSecond.settings.getAll()).meta.appName,
          'Lighthouse',
        );
        expect(seen).toBe('Lighthouse');
        // Its mail goes through the SMTP server the first instance was told about, named anew.
        const to = uniqueEmail('second');
        await onSecond.settings.testEmail('users', to, 'email-change');
        await t.mail.waitForMailTo(to, 'Confirm your new Lighthouse email');
      } finally {
        await second.close();
      }
    },
  );
});
