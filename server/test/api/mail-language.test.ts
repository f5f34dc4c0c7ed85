import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS, MSG, subjects } from '../support/contract.js';
import { tokenFromMail, type ReceivedMail } from '../support/mail.js';
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
 * Mail in the member's language (docs/decisions/0072): the record's `language`, set at sign-up and
 * by the member's own record update, picks the language of every mail to them.
 */

const DE = {
  verify: 'Bestätigen Sie Ihre E-Mail-Adresse für Gatehouse',
  reset: 'Setzen Sie Ihr Passwort für Gatehouse zurück',
  passwordChanged: 'Ihr Passwort für Gatehouse wurde geändert',
  emailTaken: 'Jemand wollte ein Konto bei Gatehouse auf diese E-Mail-Adresse umstellen',
  invite: 'Sie sind zu Gatehouse eingeladen',
  signInCode: 'Ihr Anmeldecode für Gatehouse',
};
const S = subjects();

/** The text part as written (SMTP carries it with CRLF). */
const textOf = (mail: ReceivedMail) => mail.text.replace(/\r\n/g, '\n');

/** PocketBase's answer to a select field's value that is not one of its values. */
const invalidValue = (value: string) => ({
  code: 'validation_invalid_value',
  message: `Invalid value ${value}.`,
  params: { value },
});

describe.each(DATABASES)('mail in the member’s language on %s', (db) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ db });
  });
  afterAll(() => t?.close());

  /** Signs up in German, confirms through the German mail, signs in. */
  async function germanMember(): Promise<User & { verification: ReceivedMail }> {
    const email = uniqueEmail('de');
    const password = strongPassword();
    const res = await t.signUp(await t.newCode(), email, password, { language: 'de' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.language).toBe('de');
    const asked = await t.post(PATHS.requestVerification, { email });
    expect(asked.status, asked.text).toBe(204);
    const verification = await t.mail.waitForMailTo(email, DE.verify);
    const token = tokenFromMail(verification, `${APP_URL}/verify-email?token=`);
    expect((await t.post(PATHS.confirmVerification, { token })).status).toBe(204);
    const login = await t.login(email, password);
    expect(login.status, login.text).toBe(200);
    expect(login.body.record.language).toBe('de');
    return {
      email,
      password,
      id: login.body.record.id,
      token: login.body.token,
      record: login.body.record,
      verification,
    };
  }

  it('a member who signed up in German gets the German verification mail', async () => {
    const { verification: mail } = await germanMember();
    const text = textOf(mail);
    expect(text).toMatch(
      /^Gatehouse\n\nGuten Tag,\n\nWillkommen bei Gatehouse\. Bestätigen Sie Ihre E-Mail-Adresse, um die Anlage Ihres Kontos abzuschließen:\n\nhttp:\/\/app\.test\/verify-email\?token=\S+\n\nWenn Sie kein Konto angelegt haben, können Sie diese E-Mail ignorieren\. Der Link ist 24 Stunden lang gültig\.\n\n— Gatehouse\n*$/,
    );
    expect(mail.html).toContain('<html lang="de">');
    expect(mail.html).toContain(`aria-label="${DE.verify}" lang="de"`);
    expect(mail.html).toContain('>Guten Tag,</p>');
    expect(mail.html).toContain('>E-Mail-Adresse bestätigen</a>');
    expect(mail.html).toContain(
      'Falls die Schaltfläche nicht funktioniert, öffnen Sie diesen Link:',
    );
    expect(mail.html).not.toContain('Hello,');
  });

  it('the German member’s reset mail and the notice of the new password are German', async () => {
    const member = await germanMember();
    expect((await t.post(PATHS.requestReset, { email: member.email })).status).toBe(204);
    const reset = await t.mail.waitForMailTo(member.email, DE.reset);
    expect(textOf(reset)).toContain(
      'Jemand hat darum gebeten, das Passwort Ihres Kontos bei Gatehouse zurückzusetzen.',
    );
    expect(reset.html).toContain('<html lang="de">');
    expect(reset.html).toContain('>Passwort zurücksetzen</a>');

    const token = tokenFromMail(reset, `${APP_URL}/reset-password?token=`);
    const password = strongPassword();
    const confirmed = await t.request('POST', PATHS.confirmReset, {
      body: { token, password, passwordConfirm: password },
      headers: { 'User-Agent': 'Testbrowser/1.0' },
    });
    expect(confirmed.status, confirmed.text).toBe(204);
    const notice = await t.mail.waitForMailTo(member.email, DE.passwordChanged);
    const text = textOf(notice);
    // The date as German writes it, and still in UTC: never a local time that could be misread.
    expect(text).toMatch(
      /Das Passwort Ihres Kontos bei Gatehouse wurde geändert\. Das geschah am \d{2}\.\d{2}\.\d{4}, \d{2}:\d{2} UTC von der IP-Adresse \S+ mit dem Browser: Testbrowser\/1\.0\. Wenn Sie das waren, ist nichts zu tun\./,
    );
    expect(text).toContain(
      'Mit der Änderung des Passworts wurden alle Sitzungen Ihres Kontos beendet',
    );
    expect(notice.html).toContain('<html lang="de">');
    expect(notice.html).toContain('>Neues Passwort wählen</a>');
    expect(
      t.mail.filter((m) => m.to.includes(member.email) && m.subject === S.passwordChanged),
    ).toEqual([]);
  });

  it('the German member’s sign-in code comes in German, the code on a line of its own', async () => {
    const member = await germanMember();
    const asked = await t.post(PATHS.requestOtp, { email: member.email });
    expect(asked.status, asked.text).toBe(200);
    const mail = await t.mail.waitForMailTo(member.email, DE.signInCode);
    const text = textOf(mail);
    expect(text).toMatch(
      /Ihr Code lautet:\n\n\d{8}\n\nDer Code gilt nur einmal und ist \d+ Minuten lang gültig\./,
    );
    expect(mail.html).toContain('<html lang="de">');
    expect(t.mail.filter((m) => m.to.includes(member.email) && m.subject === S.signInCode)).toEqual(
      [],
    );
  });

  it('an English member still gets the English mail, word for word', async () => {
    const email = uniqueEmail('en');
    const res = await t.signUp(await t.newCode(), email, strongPassword());
    expect(res.status, res.text).toBe(200);
    expect(res.body.language).toBe('en');
    expect((await t.post(PATHS.requestVerification, { email })).status).toBe(204);
    const mail = await t.mail.waitForMailTo(email, S.verify);
    const token = tokenFromMail(mail, `${APP_URL}/verify-email?token=`);
    // (The transport ends the part with a line break of its own.)
    expect(textOf(mail).trimEnd()).toBe(
      [
        'Gatehouse',
        '',
        'Hello,',
        '',
        'Thanks for joining Gatehouse. Confirm your email address to finish creating your account:',
        '',
        `${APP_URL}/verify-email?token=${token}`,
        '',
        "If you didn't create an account, you can ignore this email. The link expires in 24 hours.",
        '',
        '— Gatehouse',
      ].join('\n'),
    );
    expect(mail.html).toContain('<html lang="en">');
    expect(mail.html).toContain('>Hello,</p>');
    expect(mail.html).toContain('If the button does not work, open this link:');
  });

  it('a language the app does not speak is refused at sign-up: no account, the code unused', async () => {
    const code = await t.newCode();
    const email = uniqueEmail('fr');
    const password = strongPassword();
    const res = await t.signUp(code, email, password, { language: 'fr' });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({
      data: { language: invalidValue('fr') },
      message: MSG.create,
      status: 400,
    });
    // Nothing was made: the same code and email sign up once the language is one of the two.
    expect((await t.login(email, password)).status).toBe(400);
    const again = await t.signUp(code, email, password, { language: 'de' });
    expect(again.status, again.text).toBe(200);
    expect(again.body.language).toBe('de');
  });

  it('the member changes their language; a bad one changes nothing; another member’s is not theirs', async () => {
    const member = await t.verifiedUser();
    const other = await t.verifiedUser();
    expect(member.record.language).toBe('en');

    const changed = await t.patch(PATHS.record(member.id), { language: 'de' }, member.token);
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.language).toBe('de');
    const after = await t.get(PATHS.record(member.id), member.token);
    expect(after.body.language).toBe('de');

    // One bad field, and nothing of the update happens (the name neither).
    const bad = await t.patch(
      PATHS.record(member.id),
      { language: 'EN', name: 'Someone Else' },
      member.token,
    );
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body).toEqual({
      data: { language: invalidValue('EN') },
      message: MSG.update,
      status: 400,
    });
    expect((await t.get(PATHS.record(member.id), member.token)).body).toEqual(after.body);

    // Another member's record is not found, whatever the field.
    const theirs = await t.patch(PATHS.record(other.id), { language: 'de' }, member.token);
    expect(theirs.status, theirs.text).toBe(404);
    expect((await t.get(PATHS.record(other.id), other.token)).body.language).toBe('en');

    // And the member's mail follows the change.
    expect((await t.post(PATHS.requestReset, { email: member.email })).status).toBe(204);
    await t.mail.waitForMailTo(member.email, DE.reset);
    expect((await t.post(PATHS.requestReset, { email: other.email })).status).toBe(204);
    await t.mail.waitForMailTo(other.email, S.reset);
  });

  it('an address that has an account hears of a move to it in that account’s language', async () => {
    const mover = await t.verifiedUser();
    const owner = await germanMember();
    const res = await t.post(PATHS.requestEmailChange, { newEmail: owner.email }, mover.token);
    expect(res.status, res.text).toBe(204);
    const mail = await t.mail.waitForMailTo(owner.email, DE.emailTaken);
    expect(mail.html).toContain('<html lang="de">');
  });

  it('an invitation by email is written in the inviting operator’s language', async () => {
    const root = await t.initialUser();
    const setDe = await t.patch(PATHS.record(root.id), { language: 'de' }, root.token);
    expect(setDe.status, setDe.text).toBe(200);
    try {
      const guest = uniqueEmail('guest');
      const res = await t.post('/api/admin/invite-email', { email: guest }, root.token);
      expect(res.status, res.text).toBe(200);
      const mail = await t.mail.waitForMailTo(guest, DE.invite);
      expect(textOf(mail)).toMatch(/Ihr Einladungscode ist [0-9A-Z-]+; er gilt nur einmal\./);
      expect(mail.html).toContain('<html lang="de">');
    } finally {
      await t.patch(PATHS.record(root.id), { language: 'en' }, root.token);
    }
  });
});
