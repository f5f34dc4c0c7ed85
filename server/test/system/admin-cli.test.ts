import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, npmCli } from '../support/cli.js';
import { PATHS } from '../support/contract.js';
import { APP_URL, startTestServer, type TestServer, type User } from '../support/server.js';
import { twoStepMember } from '../support/totp.js';
import { SoftAuthenticator } from '../support/webauthn.js';

/** `npm run --silent cli -- users …` as an operator runs it, against a running server's data. */

function cli(t: TestServer, args: string[], databaseUrl = t.databaseUrl): Promise<CliRun> {
  return npmCli(args, {
    LOG_LEVEL: 'silent',
    DATA_DIR: t.dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(t.env.TOKEN_SECRET ? { TOKEN_SECRET: t.env.TOKEN_SECRET } : {}),
  });
}

/** The line each command starts with on stderr: which database it opened. */
function databaseLine(t: TestServer): string {
  if (!t.databaseUrl) return `Database: ${path.join(t.dataDir, 'gatehouse.db')}`;
  const url = new URL(t.databaseUrl);
  return `Database: PostgreSQL 127.0.0.1:5432${url.pathname}`;
}

/** What the command said on stderr after naming the database. */
const said = (run: CliRun): string => run.stderr.replace(/^Database: .*\n/, '').trim();

describe.each(['sqlite', 'postgres'] as const)('the users CLI on %s', (db) => {
  let t: TestServer;
  let root: User;
  let member: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    root = await t.initialUser();
    member = await t.verifiedUser();
  });
  afterAll(() => t?.close());

  it('users list: one line per member (email, id, status, role); --q filters literally', async () => {
    const unverified = await t.unverifiedUser(`cli_${db}_x@example.com`);
    const all = await cli(t, ['users', 'list']);
    expect(all.code, all.stderr).toBe(0);
    // Which database, on stderr (stdout stays the list).
    expect(all.stderr).toBe(`${databaseLine(t)}\n`);
    const lines = all.stdout.trim().split('\n');
    expect(lines).toContain(`${root.email}\t${root.id}\tverified\tinitial`);
    expect(lines).toContain(`${member.email}\t${member.id}\tverified\tmember`);
    expect(lines).toContain(`${unverified.email}\t${unverified.id}\tunverified\tmember`);
    const some = await cli(t, ['users', 'list', '--q', `CLI_${db}_`]);
    expect(some.stdout.trim().split('\n')).toEqual([
      `${unverified.email}\t${unverified.id}\tunverified\tmember`,
    ]);
    expect((await cli(t, ['users', 'list', '--q', `cli%${db}`])).stdout).toBe('');
  }, 120_000);

  it('users disable / enable: the running server refuses the member at once, then lets them in', async () => {
    const off = await cli(t, ['users', 'disable', member.email.toUpperCase()]);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toBe(`Disabled ${member.email}\n`);
    expect((await t.get(PATHS.codes, member.token)).status).toBe(401);
    const login = await t.login(member.email, member.password);
    expect(login.status).toBe(403);
    expect(login.body.message).toBe('This account has been disabled.');
    const listed = await cli(t, ['users', 'list', '--q', member.email]);
    expect(listed.stdout).toBe(`${member.email}\t${member.id}\tdisabled\tmember\n`);
    const on = await cli(t, ['users', 'enable', member.email]);
    expect(on.code, on.stderr).toBe(0);
    expect((await t.login(member.email, member.password)).status).toBe(200);
    const events = await t.get(
      `/api/admin/security-events?member=${member.id}&type=admin_disable`,
      root.token,
    );
    expect(events.body.items[0]).toMatchObject({ detail: { actor: 'cli' }, ip: 'cli' });
  }, 120_000);

  it('users make-operator, then delete; the initial user cannot be disabled or deleted', async () => {
    const u = await t.verifiedUser();
    const made = await cli(t, ['users', 'make-operator', u.email]);
    expect(made.code, made.stderr).toBe(0);
    expect((await t.get('/api/admin/members', u.token)).status).toBe(200);
    const gone = await cli(t, ['users', 'delete', u.email]);
    expect(gone.code, gone.stderr).toBe(0);
    expect((await t.get(PATHS.codes, u.token)).status).toBe(401);
    for (const action of ['disable', 'delete']) {
      const refused = await cli(t, ['users', action, root.email]);
      expect(refused.code).toBe(1);
      expect(said(refused)).toMatch(/^The initial user cannot be (disabled|deleted)\.$/);
    }
    expect((await t.get(PATHS.codes, root.token)).status).toBe(200);
  }, 120_000);

  it('users remove-operator: the console is closed to them again, logged; never the initial user', async () => {
    const u = await t.verifiedUser();
    expect((await cli(t, ['users', 'make-operator', u.email])).code).toBe(0);
    expect((await t.get('/api/admin/members', u.token)).status).toBe(200);
    const removed = await cli(t, ['users', 'remove-operator', u.email]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`No longer an operator: ${u.email}\n`);
    expect((await t.get('/api/admin/members', u.token)).status).toBe(403);
    const listed = await cli(t, ['users', 'list', '--q', u.email]);
    expect(listed.stdout).toBe(`${u.email}\t${u.id}\tverified\tmember\n`);
    const events = await t.get(
      `/api/admin/security-events?member=${u.id}&type=admin_remove_operator`,
      root.token,
    );
    expect(events.body.items).toHaveLength(1);
    expect(events.body.items[0]).toMatchObject({ detail: { actor: 'cli' }, ip: 'cli' });

    const refused = await cli(t, ['users', 'remove-operator', root.email]);
    expect(refused.code).toBe(1);
    expect(said(refused)).toBe('The initial user is always an operator.');
    expect((await t.get('/api/admin/members', root.token)).status).toBe(200);
  }, 120_000);

  it('users reset-two-step: the member signs in with the password alone and is mailed', async () => {
    const m = await twoStepMember(t);
    const key = new SoftAuthenticator(APP_URL);
    const options = await t.post(PATHS.passkeyOptions, {}, m.token);
    const added = await t.post(
      PATHS.passkeys,
      { name: 'Phone', response: key.register(options.body) },
      m.token,
    );
    expect(added.status, added.text).toBe(200);
    expect((await t.login(m.email, m.password)).status).toBe(401);

    const reset = await cli(t, ['users', 'reset-two-step', m.email]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toBe(
      `Reset two-step sign-in of ${m.email}: two-step sign-in turned off, 1 passkey removed.\n`,
    );
    const login = await t.login(m.email, m.password);
    expect(login.status, login.text).toBe(200);
    const mail = await t.mail.waitForMailTo(
      m.email,
      'Two-step sign-in was reset on your Gatehouse account',
      10_000,
    );
    expect(mail.text).toContain('two-step sign-in is off');
    const events = await t.get(
      `/api/admin/security-events?member=${m.id}&type=admin_reset_two_step`,
      root.token,
    );
    expect(events.body.items[0]).toMatchObject({
      detail: { actor: 'cli', twoStep: true, passkeys: 1 },
      actor: { id: 'cli', email: null },
      ip: 'cli',
    });

    // Nothing left: said so, exit code 1. The initial user's can be reset from here.
    const again = await cli(t, ['users', 'reset-two-step', m.email]);
    expect(again.code).toBe(1);
    expect(said(again)).toBe('This member has neither two-step sign-in nor a passkey.');
    const initial = await cli(t, ['users', 'reset-two-step', root.email]);
    expect(initial.code).toBe(1);
    expect(said(initial)).toBe('This member has neither two-step sign-in nor a passkey.');
  }, 120_000);

  it('errors: an unknown email (1), a wrong use (2, with the usage)', async () => {
    const unknown = await cli(t, ['users', 'disable', 'nobody@example.com']);
    expect(unknown.code).toBe(1);
    expect(said(unknown)).toBe('No member with the email "nobody@example.com".');
    for (const args of [
      ['users'],
      ['users', 'frobnicate'],
      ['users', 'disable'],
      ['users', 'reset-two-step'],
      ['users', 'remove-operator'],
      ['users', 'list', '--x'],
    ]) {
      const wrong = await cli(t, args);
      expect(wrong.code, args.join(' ')).toBe(2);
      expect(wrong.stderr).toContain('Usage: npm run --silent cli -- <command>');
      expect(wrong.stdout).toBe('');
      // Nothing opened: no database line.
      expect(wrong.stderr).not.toContain('Database:');
    }
  }, 120_000);

  it.runIf(db === 'postgres')(
    'names PostgreSQL by host:port/database, never with the password of DATABASE_URL',
    async () => {
      const url = new URL(t.databaseUrl!);
      url.password = 'never-shown-pw';
      const run = await cli(t, ['users', 'list', '--q', root.email], url.toString());
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toBe(`${databaseLine(t)}\n`);
      expect(run.stdout + run.stderr).not.toContain('never-shown-pw');
      expect(run.stdout + run.stderr).not.toContain('postgres@');
    },
    120_000,
  );
});
