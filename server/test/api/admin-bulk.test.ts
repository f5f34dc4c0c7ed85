import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewUser } from '../../src/db/schema.js';
import { MSG, PATHS, subjects } from '../support/contract.js';
import { withDatabase } from '../support/db.js';
import type { ApiResponse, Json } from '../support/http.js';
import { tokenFromMail } from '../support/mail.js';
import { CONFIRM_IT_IS_YOU, staleSession } from '../support/reauth.js';
import { twoStepMember } from '../support/totp.js';
import {
  APP_URL,
  DATABASES,
  startTestServer,
  strongPassword,
  uniqueEmail,
  type TestServer,
  type User,
} from '../support/server.js';

/**
 * The console's Members table (docs/api.md, "Operator console"): the list's filter and sort in
 * PocketBase's grammar, the bulk actions (the single actions' code for many members, in one
 * transaction, skipping who they do not apply to), the CSV export of a search, and Invite by Email
 * with its mail through the real SMTP receiver.
 */

const ADMIN = {
  members: '/api/admin/members',
  bulk: '/api/admin/members/bulk',
  csv: '/api/admin/members.csv',
  invite: '/api/admin/invite-email',
  operator: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/operator`,
  disable: (id: string) => `/api/admin/members/${encodeURIComponent(id)}/disable`,
  events: '/api/admin/security-events',
  tree: '/api/admin/invite-tree',
} as const;

const INVITE_SUBJECT = "You're invited to join Gatehouse";
const HEADER = 'email,name,status,verified,two_step,last_sign_in,inviter_email,joined';

/** RFC 4180 rows of a CSV text (quoted cells, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

const query = (params: Record<string, string>) => `?${new URLSearchParams(params).toString()}`;

describe.each(DATABASES)('the Members table on %s', (db) => {
  let t: TestServer;
  let root: User;
  /** A member the initial user made an operator. */
  let op: User;
  /** A plain verified member. */
  let plain: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    root = await t.initialUser();
    op = await t.verifiedUser(uniqueEmail('op'));
    plain = await t.verifiedUser(uniqueEmail('plain'));
    const made = await t.post(ADMIN.operator(op.id), {}, root.token);
    if (made.status !== 200) throw new Error(`make operator: ${made.text}`);
  });
  afterAll(() => t?.close());

  const bulk = (action: string, ids: string[], token = root.token) =>
    t.post(ADMIN.bulk, { action, ids }, token);
  const outcome = (res: ApiResponse) =>
    Object.fromEntries((res.body.results as Json[]).map((r) => [r.id, r.reason ?? r.result]));
  const eventsOf = async (member: string, type: string) =>
    (await t.get(`${ADMIN.events}${query({ member, type })}`, root.token)).body.items as Json[];

  describe('who may', () => {
    it('a guest gets 401 and a member who is not an operator 403, everywhere', async () => {
      const calls: Array<() => Promise<ApiResponse>> = [
        () => t.post(ADMIN.bulk, { action: 'enable', ids: [plain.id] }),
        () => t.get(ADMIN.csv),
        () => t.post(ADMIN.invite, { email: uniqueEmail('guest-invite') }),
      ];
      for (const call of calls) {
        const res = await call();
        expect(res.status).toBe(401);
        expect(res.body.message).toBe(MSG.needsAuth);
      }
      const asMember = [
        () => bulk('enable', [op.id], plain.token),
        () => t.get(ADMIN.csv, plain.token),
        () => t.get(`${ADMIN.members}${query({ filter: 'verified = true' })}`, plain.token),
        // An address that has an account: a member learns nothing of it, only the 403.
        () => t.post(ADMIN.invite, { email: op.email }, plain.token),
      ];
      for (const call of asMember) {
        const res = await call();
        expect(res.status).toBe(403);
        expect(res.body.message).toBe(MSG[403]);
      }
    });

    it("a bulk action needs a fresh session, as the single actions: Confirm it's you, nothing done", async () => {
      const target = await t.verifiedUser(uniqueEmail('fresh'));
      const token = await t.tokenFor(op);
      await staleSession(t, token);
      const res = await bulk('disable', [target.id], token);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(CONFIRM_IT_IS_YOU);
      expect((await t.get(PATHS.record(target.id), target.token)).status).toBe(200);
      // The export and an invitation change no member: a stale session still may.
      expect((await t.get(ADMIN.csv, token)).status).toBe(200);
    });
  });

  describe('the list: PocketBase filter and sort, and what each row shows', () => {
    it('filters with the grammar, sorts by a column, and shows inviter, two-step and last sign-in', async () => {
      const tag = `flt${Date.now().toString(36)}`;
      const a = await t.verifiedUser(uniqueEmail(`${tag}-a`));
      const b = await t.unverifiedUser(uniqueEmail(`${tag}-b`));
      const list = await t.get(
        `${ADMIN.members}${query({ filter: `email ~ "${tag}" && verified = false` })}`,
        root.token,
      );
      expect(list.status).toBe(200);
      expect(list.body.items.map((m: Json) => m.email)).toEqual([b.email]);
      expect(list.body.totalItems).toBe(1);

      const sorted = await t.get(
        `${ADMIN.members}${query({ filter: `email ~ "${tag}"`, sort: '-email' })}`,
        root.token,
      );
      expect(sorted.body.items.map((m: Json) => m.email)).toEqual([b.email, a.email]);
      const row = sorted.body.items[1];
      // Signed up with a code of the initial user's; signed in once (verifiedUser).
      expect(row.invitedBy).toEqual({ id: root.id, email: root.email });
      expect(row.inviterDeleted).toBe(false);
      expect(row.twoStep).toBe(false);
      expect(row.lastSignIn).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(sorted.body.items[0].lastSignIn).toBeNull();

      // `disabled` is a field of the console's filter (not of PocketBase's record list).
      const disabled = await t.get(
        `${ADMIN.members}${query({ filter: `disabled = true && email ~ "${tag}"` })}`,
        root.token,
      );
      expect(disabled.body.items).toEqual([]);
    });

    it('sorts by two-step, last sign-in and inviter: members without one first going up, last going down', async () => {
      const tag = `nul${Date.now().toString(36)}`;
      // Signed in (verifiedUser signs in once); never signed in; two-step on (signed in too).
      const a = await t.verifiedUser(uniqueEmail(`${tag}-a`));
      const b = await t.unverifiedUser(uniqueEmail(`${tag}-b`));
      const c = await twoStepMember(t);
      // Invited by `a` with one of a's own codes; never signed in.
      const codes = await t.get(PATHS.codes, a.token);
      const code = (codes.body.codes as Json[])[0]!.code as string;
      const dEmail = uniqueEmail(`${tag}-d`);
      const d = await t.signUp(code, dEmail, strongPassword());
      expect(d.status, d.text).toBe(200);
      const ids = [root.id, a.id, b.id, c.id, d.body.id as string];
      const filter = ids.map((id) => `id = "${id}"`).join(' || ');
      const list = async (sort: string) => {
        const res = await t.get(`${ADMIN.members}${query({ filter, sort })}`, root.token);
        expect(res.status, res.text).toBe(200);
        return res.body.items as Json[];
      };
      const emails = (rows: Json[]) => rows.map((m) => m.email as string);
      const byId = (x: Json, y: Json) => ((x.id as string) < (y.id as string) ? -1 : 1);

      // Last sign-in, oldest first: the two who never signed in first (by id), then by time.
      const oldest = await list('lastSignIn');
      expect(oldest.map((m) => m.lastSignIn === null)).toEqual([true, true, false, false, false]);
      expect(emails(oldest.slice(0, 2))).toEqual(emails([...oldest.slice(0, 2)].sort(byId)));
      expect(new Set(emails(oldest.slice(0, 2)))).toEqual(new Set([b.email, dEmail]));
      const times = oldest.slice(2).map((m) => m.lastSignIn as string);
      expect(times).toEqual([...times].sort());
      // The initial user signed in first, then a, then c.
      expect(emails(oldest.slice(2))).toEqual([root.email, a.email, c.email]);
      // Newest first: the exact reverse, the never-signed-in last.
      expect(emails(await list('-lastSignIn'))).toEqual(emails(oldest).reverse());

      // Two-step on first (going down), then the others by id, newest id first.
      const twoStep = await list('-twoStep');
      expect(twoStep.map((m) => m.twoStep)).toEqual([true, false, false, false, false]);
      expect(twoStep[0]!.email).toBe(c.email);
      expect(emails(twoStep.slice(1))).toEqual(emails([...twoStep.slice(1)].sort(byId).reverse()));
      expect(emails(await list('twoStep'))).toEqual(emails(twoStep).reverse());

      // Inviter's email, A to Z: the initial user (no inviter) first; d (invited by a) among
      // those the initial user invited in the order of a's and the initial user's emails.
      const inviters = await list('invitedBy');
      expect(inviters[0]!.email).toBe(root.email);
      expect(inviters[0]!.invitedBy).toBeNull();
      const shown = inviters.slice(1).map((m) => (m.invitedBy as Json).email as string);
      expect(shown).toEqual([...shown].sort());
      expect(inviters.find((m) => m.email === dEmail)!.invitedBy).toEqual({
        id: a.id,
        email: a.email,
      });
      expect(emails(await list('-invitedBy'))).toEqual(emails(inviters).reverse());

      // Once a's account is gone, d has no inviter on record: among the first going up.
      await withDatabase(t, (d) => d.deleteFrom('users').where('id', '=', a.id).execute());
      const orphaned = await list('invitedBy');
      expect(
        orphaned
          .map((m) => m.email)
          .slice(0, 2)
          .sort(),
      ).toEqual([root.email, dEmail].sort());
      expect(orphaned.find((m) => m.email === dEmail)!.inviterDeleted).toBe(true);

      // A sort the table has combined with the filter's total: the four left.
      const total = await t.get(
        `${ADMIN.members}${query({ filter, sort: '-lastSignIn' })}`,
        root.token,
      );
      expect(total.body.totalItems).toBe(4);
    });

    it("a filter or sort it cannot read is PocketBase's 400 with the field's own words", async () => {
      const bad = await t.get(`${ADMIN.members}${query({ filter: 'password = "x"' })}`, root.token);
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe(MSG[400]);
      expect(bad.body.data.filter.code).toBe('validation_invalid_filter');
      expect(bad.body.data.filter.message).toMatch(
        /^Unknown field "password": filter by id, email/,
      );
      const broken = await t.get(`${ADMIN.members}${query({ filter: 'email = ' })}`, root.token);
      expect(broken.status).toBe(400);
      expect(broken.body.data.filter.message).toBeTruthy();
      const sort = await t.get(`${ADMIN.members}${query({ sort: 'password' })}`, root.token);
      expect(sort.status).toBe(400);
      expect(sort.body.data.sort.message).toMatch(/^Cannot sort by "password"/);
    });
  });

  describe('bulk actions', () => {
    it('Disable: the members it applies to are disabled and signed out, in one go; the others are skipped with a reason', async () => {
      const [a, b, already] = await Promise.all([
        t.verifiedUser(uniqueEmail('bulk-a')),
        t.verifiedUser(uniqueEmail('bulk-b')),
        t.verifiedUser(uniqueEmail('bulk-c')),
      ]);
      expect((await t.post(ADMIN.disable(already.id), {}, root.token)).status).toBe(200);
      const res = await bulk('disable', [
        a.id,
        b.id,
        already.id,
        op.id,
        root.id,
        'nosuchmember00',
        a.id,
      ]);
      expect(res.status).toBe(200);
      expect(res.body.done).toBe(2);
      expect(res.body.skipped).toBe(4);
      expect(outcome(res)).toEqual({
        [a.id]: 'done',
        [b.id]: 'done',
        [already.id]: 'Already disabled.',
        [op.id]: 'Operators are disabled one at a time, from their page.',
        [root.id]: 'The initial user cannot be disabled.',
        nosuchmember00: 'There is no member with this id.',
      });
      // Their sessions ended; sign-in is refused; each has its event, by the initial user.
      for (const m of [a, b]) {
        expect((await t.post(PATHS.refresh, {}, m.token)).status).toBe(401);
        expect((await t.login(m.email, m.password)).status).toBe(403);
        const [event] = await eventsOf(m.id, 'admin_disable');
        expect(event.actor).toEqual({ id: root.id, email: root.email });
        expect(event.detail.sessions).toBe(1);
      }
      // An operator disabling themself is skipped too.
      const own = await bulk('disable', [op.id], op.token);
      expect(outcome(own)).toEqual({ [op.id]: 'You cannot disable your own account.' });

      const enabled = await bulk('enable', [a.id, b.id, plain.id]);
      expect(enabled.body).toMatchObject({ done: 2, skipped: 1 });
      expect(outcome(enabled)[plain.id]).toBe('Not disabled.');
      expect((await t.login(a.email, a.password)).status).toBe(200);
      expect(await eventsOf(b.id, 'admin_enable')).toHaveLength(1);
    });

    it('Resend Verification and Mark Verified reach the unverified members only', async () => {
      const [u1, u2] = await Promise.all([
        t.unverifiedUser(uniqueEmail('unv-1')),
        t.unverifiedUser(uniqueEmail('unv-2')),
      ]);

      const resent = await bulk('resend-verification', [u1.id, u2.id, plain.id]);
      expect(resent.body).toMatchObject({ done: 2, skipped: 1 });
      expect(outcome(resent)[plain.id]).toBe("The member's email is already verified.");
      await t.mail.waitForMailTo(u1.email, subjects().verify);
      const mail = await t.mail.waitForMailTo(u2.email, subjects().verify);
      expect(tokenFromMail(mail, `${APP_URL}/verify-email?token=`)).toBeTruthy();
      expect(await eventsOf(u1.id, 'admin_resend_verification')).toHaveLength(1);

      const marked = await bulk('mark-verified', [u1.id, u2.id, plain.id]);
      expect(marked.body).toMatchObject({ done: 2, skipped: 1 });
      // Verified: they sign in (an unverified account cannot).
      expect((await t.login(u1.email, u1.password)).status).toBe(200);
      const [event] = await eventsOf(u2.id, 'admin_mark_verified');
      expect(event.actor.id).toBe(root.id);
      const again = await bulk('mark-verified', [u1.id]);
      expect(again.body).toMatchObject({ done: 0, skipped: 1 });
    });

    it('Send Password Reset mails a working reset link; disabled members are skipped', async () => {
      const [m, off] = await Promise.all([
        t.verifiedUser(uniqueEmail('reset')),
        t.verifiedUser(uniqueEmail('reset-off')),
      ]);
      expect((await t.post(ADMIN.disable(off.id), {}, root.token)).status).toBe(200);
      const res = await bulk('password-reset', [m.id, off.id]);
      expect(res.body).toMatchObject({ done: 1, skipped: 1 });
      expect(outcome(res)[off.id]).toBe('This account has been disabled.');
      const mail = await t.mail.waitForMailTo(m.email, subjects().reset);
      const token = tokenFromMail(mail, `${APP_URL}/reset-password?token=`);
      const password = strongPassword();
      const reset = await t.post(PATHS.confirmReset, {
        token,
        password,
        passwordConfirm: password,
      });
      expect(reset.status).toBe(204);
      expect((await t.login(m.email, password)).status).toBe(200);
      expect(await eventsOf(m.id, 'admin_send_password_reset')).toHaveLength(1);
      expect(
        t.mail.messages.some((x) => x.to.includes(off.email) && x.subject === subjects().reset),
      ).toBe(false);
    });

    it('a request it cannot read is a 400 that changes nothing', async () => {
      const cases: Array<[Json, string, string]> = [
        [{ action: 'explode', ids: [plain.id] }, 'action', 'validation_in_invalid'],
        [{ ids: [plain.id] }, 'action', 'validation_required'],
        [{ action: 'disable', ids: [] }, 'ids', 'validation_required'],
        [
          { action: 'disable', ids: Array.from({ length: 201 }, (_, i) => `id${i}`) },
          'ids',
          'validation_length_out_of_range',
        ],
      ];
      for (const [body, field, code] of cases) {
        const res = await t.post(ADMIN.bulk, body, root.token);
        expect(res.status).toBe(400);
        expect(res.body.message).toBe(MSG.validate);
        expect(res.body.data[field].code).toBe(code);
      }
      const notAList = await t.post(ADMIN.bulk, { action: 'disable', ids: 'all' }, root.token);
      expect(notAList.status).toBe(400);
      expect(notAList.body.message).toBe(MSG.load);
      expect((await t.login(plain.email, plain.password)).status).toBe(200);
    });
  });

  describe('CSV export', () => {
    it('the filtered members in the asked order, quoted, with formulas made harmless', async () => {
      const tag = `csv${Date.now().toString(36)}`;
      const a = await t.verifiedUser(uniqueEmail(`${tag}-a`));
      const b = await t.verifiedUser(uniqueEmail(`${tag}-b`));
      const c = await t.unverifiedUser(uniqueEmail(`${tag}-c`));
      const named = async (u: User, name: string) =>
        expect((await t.patch(PATHS.record(u.id), { name }, u.token)).status).toBe(200);
      await named(a, '=HYPERLINK("http://evil.test","click")');
      await named(b, 'Lovelace, "Ada"');
      expect((await t.post(ADMIN.disable(b.id), {}, root.token)).status).toBe(200);

      const res = await t.get(
        `${ADMIN.csv}${query({ filter: `email ~ "${tag}"`, sort: 'email' })}`,
        root.token,
      );
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toMatch(
        /^attachment; filename="members-\d{4}-\d\d-\d\d\.csv"$/,
      );
      expect(res.text.startsWith(`${HEADER}\r\n`)).toBe(true);
      expect(res.text).toContain('"\'=HYPERLINK(""http://evil.test"",""click"")"');
      const rows = parseCsv(res.text);
      expect(rows).toHaveLength(4);
      const [ra, rb, rc] = rows.slice(1);
      expect(ra!.slice(0, 5)).toEqual([
        a.email,
        '\'=HYPERLINK("http://evil.test","click")',
        'active',
        'yes',
        'no',
      ]);
      expect(ra![5]).toMatch(/^\d{4}-/);
      expect(ra![6]).toBe(root.email);
      expect(res.text).toContain(`${b.email},"Lovelace, ""Ada""",disabled,`);
      expect(rb!.slice(0, 3)).toEqual([b.email, 'Lovelace, "Ada"', 'disabled']);
      expect(rc!.slice(0, 6)).toEqual([c.email, '', 'active', 'no', 'no', '']);
      for (const row of rows.slice(1)) expect(row[7]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d/);

      // Newest first by default; the status and a search narrow it as on the screen.
      const newest = parseCsv(
        (await t.get(`${ADMIN.csv}${query({ q: tag, status: 'verified' })}`, root.token)).text,
      );
      expect(newest.slice(1).map((r) => r[0])).toEqual([a.email]);
      expect(await eventsOf(root.id, 'admin_members_exported')).not.toHaveLength(0);
    });

    it('a download link is authorized by a file token of an operator; a bad filter is a 400', async () => {
      const token = (await t.post('/api/files/token', {}, op.token)).body.token as string;
      const res = await t.get(`${ADMIN.csv}${query({ token, filter: `email = "${op.email}"` })}`);
      expect(res.status).toBe(200);
      expect(parseCsv(res.text).map((r) => r[0])).toEqual(['email', op.email]);

      const theirs = (await t.post('/api/files/token', {}, plain.token)).body.token as string;
      expect((await t.get(`${ADMIN.csv}${query({ token: theirs })}`)).status).toBe(403);
      expect((await t.get(`${ADMIN.csv}${query({ token: 'not-a-token' })}`)).status).toBe(401);
      // An auth token is not a file token (and a file token is no auth token).
      expect((await t.get(`${ADMIN.csv}${query({ token: op.token })}`)).status).toBe(401);
      expect((await t.get(ADMIN.csv, token)).status).toBe(401);

      const bad = await t.get(`${ADMIN.csv}${query({ filter: 'nope ~ "x"' })}`, root.token);
      expect(bad.status).toBe(400);
      expect(bad.body.data.filter.code).toBe('validation_invalid_filter');
    });
  });

  describe('Invite by Email', () => {
    it('mails a sign-up link with a new code of the operator; signing up with it makes them the inviter', async () => {
      const email = uniqueEmail('invited');
      const res = await t.post(ADMIN.invite, { email: `  ${email.toUpperCase()} ` }, op.token);
      expect(res.status).toBe(200);
      expect(res.body.email).toBe(email);
      expect(res.body.code.code).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){4}$/);
      // The code is the operator's own, unused until the invitee signs up.
      const theirCodes = (await t.get(PATHS.codes, op.token)).body.codes as Json[];
      expect(theirCodes.map((c) => c.code)).toContain(res.body.code.code);

      const mail = await t.mail.waitForMailTo(email, INVITE_SUBJECT);
      expect(mail.from).toBe('no-reply@app.test');
      const link = `${APP_URL}/signup?code=${res.body.code.code}`;
      expect(mail.text).toContain(link);
      expect(mail.text).toContain(`${op.email} invited you to join Gatehouse.`);
      expect(mail.html).toContain(`href="${link}"`);

      const signUp = await t.signUp(res.body.code.code, email, strongPassword());
      expect(signUp.status).toBe(200);
      const list = await t.get(`${ADMIN.members}${query({ q: email })}`, root.token);
      expect(list.body.items[0].invitedBy).toEqual({ id: op.id, email: op.email });
      const [event] = await eventsOf(op.id, 'admin_invite_sent');
      expect(event.detail).toEqual({ actor: op.id, code: res.body.code.id });
    });

    it('a blank or bad address, or one that already has an account, is a 400 that sends nothing', async () => {
      const sent = t.mail.messages.length;
      const cases: Array<[string, string, string]> = [
        ['', MSG.validate, 'validation_required'],
        ['not-an-address', MSG.validate, 'validation_is_email'],
        [
          plain.email.toUpperCase(),
          'This address is already a member.',
          'validation_already_member',
        ],
      ];
      for (const [email, message, code] of cases) {
        const res = await t.post(ADMIN.invite, { email }, op.token);
        expect(res.status).toBe(400);
        expect(res.body.message).toBe(message);
        expect(res.body.data.email.code).toBe(code);
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(t.mail.messages.length).toBe(sent);
    });
  });
});

describe.each(DATABASES)('the Members table at more than a chunk of members on %s', (db) => {
  const COUNT = 1250;
  const SAME = '2025-02-01 00:00:00.000Z';
  let t: TestServer;
  let root: User;
  beforeAll(async () => {
    t = await startTestServer({ db });
    root = await t.initialUser();
    await withDatabase(t, async (d) => {
      const rows: NewUser[] = Array.from({ length: COUNT }, (_, n) => {
        // Every tenth shares one time: the export's paging must step over ties by id.
        const created =
          n % 10 === 0
            ? SAME
            : new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString().replace('T', ' ');
        return {
          id: `seed${n.toString().padStart(11, '0')}`,
          email: `seed${n}@seeded.test`,
          password_hash: 'x',
          token_key: 'seeded',
          verified: n % 3 === 0 ? 0 : 1,
          email_visibility: 0,
          is_initial_user: 0,
          disabled: 0,
          invite_code: 'SEEDED',
          invited_by: root.id,
          verification_sent_at: null,
          reset_sent_at: null,
          created,
          updated: created,
        };
      });
      for (let i = 0; i < rows.length; i += 250) {
        await d
          .insertInto('users')
          .values(rows.slice(i, i + 250))
          .execute();
      }
    });
  });
  afterAll(() => t?.close());

  it.each([['-created'], ['email'], ['-verified'], ['-lastSignIn'], ['invitedBy'], ['twoStep']])(
    'the export streams every member once, in the order the list pages them (sort %s)',
    async (sort) => {
      const filter = 'email ~ "@seeded.test"';
      const res = await t.get(`${ADMIN.csv}${query({ filter, sort })}`, root.token);
      expect(res.status).toBe(200);
      const emails = parseCsv(res.text)
        .slice(1)
        .map((r) => r[0]);
      expect(emails).toHaveLength(COUNT);
      expect(new Set(emails).size).toBe(COUNT);
      const paged: string[] = [];
      for (let page = 1; page <= Math.ceil(COUNT / 100); page++) {
        const list = await t.get(
          `${ADMIN.members}${query({ filter, sort, page: String(page), perPage: '100', skipTotal: '1' })}`,
          root.token,
        );
        paged.push(...list.body.items.map((m: Json) => m.email as string));
      }
      expect(emails).toEqual(paged);
    },
  );

  it('a bulk action takes 200 members at once and says what it did to each', async () => {
    const ids = Array.from(
      { length: 200 },
      (_, n) => `seed${(n * 3).toString().padStart(11, '0')}`,
    );
    const res = await t.post(ADMIN.bulk, { action: 'mark-verified', ids }, root.token);
    expect(res.status).toBe(200);
    // Every third seeded member was unverified; the picked ids are exactly those.
    expect(res.body).toMatchObject({ done: 200, skipped: 0 });
    const left = await t.get(
      `${ADMIN.members}${query({ filter: 'email ~ "@seeded.test" && verified = false' })}`,
      root.token,
    );
    expect(left.body.totalItems).toBe(Math.ceil(COUNT / 3) - 200);
  });
});

describe.each(DATABASES)('Invite by Email under the abuse limits on %s', (db) => {
  let t: TestServer;
  let root: User;
  beforeAll(async () => {
    t = await startTestServer({ db, env: { RATE_LIMITS: 'on' } });
    root = await t.initialUser();
  });
  afterAll(() => t?.close());

  it('3 invitations a day to one address, 20 an hour from one operator: then 429', async () => {
    const invite = (email: string) => t.post(ADMIN.invite, { email }, root.token);
    const again = uniqueEmail('again');
    for (let i = 0; i < 3; i++) expect((await invite(again)).status).toBe(200);
    const fourth = await invite(again);
    expect(fourth.status).toBe(429);
    expect(fourth.body.message).toBe(MSG[429]);
    // Four counted against the operator: 16 more to other addresses, then no more.
    for (let i = 0; i < 16; i++) expect((await invite(uniqueEmail('many'))).status).toBe(200);
    expect((await invite(uniqueEmail('one-too-many'))).status).toBe(429);
    await expect
      .poll(() => t.mail.messages.filter((m) => m.subject === INVITE_SUBJECT).length, {
        timeout: 20_000,
      })
      .toBe(19);
  });
});
