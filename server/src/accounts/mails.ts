import type { Language } from '../core/language.js';
import { composeMail, type MailContent } from '../mail/service.js';

/**
 * The mails of the account actions, each with its link, in the recipient's language
 * (docs/decisions/0072): each mail's words are one table, English then German, and the language
 * picks one. The German speaks formally (Sie) and keeps the glossary's words (docs/product.md).
 */

export function verificationMail(
  language: Language,
  appName: string,
  appUrl: string,
  token: string,
): MailContent {
  const words = {
    en: {
      subject: `Verify your ${appName} email`,
      intro: `Thanks for joining ${appName}. Confirm your email address to finish creating your account:`,
      action: 'Verify email',
      outro:
        "If you didn't create an account, you can ignore this email. The link expires in 24 hours.",
    },
    de: {
      subject: `Bestätigen Sie Ihre E-Mail-Adresse für ${appName}`,
      intro: `Willkommen bei ${appName}. Bestätigen Sie Ihre E-Mail-Adresse, um die Anlage Ihres Kontos abzuschließen:`,
      action: 'E-Mail-Adresse bestätigen',
      outro:
        'Wenn Sie kein Konto angelegt haben, können Sie diese E-Mail ignorieren. Der Link ist 24 Stunden lang gültig.',
    },
  }[language];
  return composeMail({
    language,
    appName,
    ...words,
    link: `${appUrl}/verify-email?token=${token}`,
  });
}

export function passwordResetMail(
  language: Language,
  appName: string,
  appUrl: string,
  token: string,
): MailContent {
  const words = {
    en: {
      subject: `Reset your ${appName} password`,
      intro: `Someone asked to reset the password of your ${appName} account. To choose a new password, open:`,
      action: 'Reset password',
      outro:
        "If it wasn't you, ignore this email: your password stays as it is. The link expires in 30 minutes.",
    },
    de: {
      subject: `Setzen Sie Ihr Passwort für ${appName} zurück`,
      intro: `Jemand hat darum gebeten, das Passwort Ihres Kontos bei ${appName} zurückzusetzen. Um ein neues Passwort zu wählen, öffnen Sie:`,
      action: 'Passwort zurücksetzen',
      outro:
        'Wenn Sie das nicht waren, ignorieren Sie diese E-Mail: Ihr Passwort bleibt, wie es ist. Der Link ist 30 Minuten lang gültig.',
    },
  }[language];
  return composeMail({
    language,
    appName,
    ...words,
    link: `${appUrl}/reset-password?token=${token}`,
  });
}

/**
 * An invitation an operator sent from the console: who invites, and the sign-up link that holds
 * the code (the code is in the outro too, for a sign-up page opened some other way). The invitee
 * has no account yet: it is written in the inviting operator's language.
 */
export function inviteMail(
  language: Language,
  appName: string,
  link: string,
  code: string,
  inviter: string,
): MailContent {
  const words = {
    en: {
      subject: `You're invited to join ${appName}`,
      intro: `${inviter} invited you to join ${appName}. ${appName} is invite-only: this link holds your invite code. To create your account, open:`,
      action: `Join ${appName}`,
      outro: `Your invite code is ${code}; it works once. If you don't know who sent this, you can ignore this email.`,
    },
    de: {
      subject: `Sie sind zu ${appName} eingeladen`,
      intro: `${inviter} hat Sie zu ${appName} eingeladen. ${appName} ist nur mit Einladung zugänglich: Dieser Link enthält Ihren Einladungscode. Um Ihr Konto anzulegen, öffnen Sie:`,
      action: `${appName} beitreten`,
      outro: `Ihr Einladungscode ist ${code}; er gilt nur einmal. Wenn Sie nicht wissen, wer Ihnen das geschickt hat, können Sie diese E-Mail ignorieren.`,
    },
  }[language];
  return composeMail({ language, appName, ...words, link });
}

/** The console's Send Test Email, to the operator who asked, in their language. */
export function operatorTestMail(language: Language, appName: string, appUrl: string): MailContent {
  const words = {
    en: {
      subject: `${appName} test email`,
      intro: `This is a test email from ${appName}, sent from the operator console. Mail is being delivered.`,
      action: `Open ${appName}`,
      outro: 'Nothing to do: you asked for this email.',
    },
    de: {
      subject: `Test-E-Mail von ${appName}`,
      intro: `Dies ist eine Test-E-Mail von ${appName}, gesendet aus der Verwaltung. E-Mails werden zugestellt.`,
      action: `${appName} öffnen`,
      outro: 'Nichts zu tun: Sie haben diese E-Mail angefordert.',
    },
  }[language];
  return composeMail({ language, appName, ...words, link: `${appUrl}/` });
}

/**
 * A sign-in code (PocketBase's OTP mail, in the app's template): the code, shown on its own, and
 * how long it works. No link: the code is typed where it was asked for.
 */
export function signInCodeMail(
  language: Language,
  appName: string,
  code: string,
  minutes: number,
): MailContent {
  const words = {
    en: {
      subject: `Your ${appName} sign-in code`,
      intro: `Someone asked to sign in to your ${appName} account with a code sent to this address. Your code is:`,
      outro: `The code works once and expires in ${minutes} minutes. Never give it to anyone: ${appName} will never ask you for it. If you didn't ask for a code, you can ignore this email.`,
    },
    de: {
      subject: `Ihr Anmeldecode für ${appName}`,
      intro: `Jemand möchte sich mit einem Code, der an diese Adresse gesendet wird, bei Ihrem Konto bei ${appName} anmelden. Ihr Code lautet:`,
      outro: `Der Code gilt nur einmal und ist ${minutes} Minuten lang gültig. Geben Sie ihn niemandem: ${appName} wird Sie nie danach fragen. Wenn Sie keinen Code angefordert haben, können Sie diese E-Mail ignorieren.`,
    },
  }[language];
  return composeMail({ language, appName, ...words, code });
}

/** To the new address, in the language of the account that asks to move there. */
export function emailChangeMail(
  language: Language,
  appName: string,
  appUrl: string,
  token: string,
  newEmail: string,
): MailContent {
  const words = {
    en: {
      subject: `Confirm your new ${appName} email`,
      intro: `Someone asked to move a ${appName} account to ${newEmail}. To confirm that this is your address, open the link and enter the account's password:`,
      action: 'Confirm new email',
      outro:
        "If you didn't ask for this, ignore this email: nothing changes. The link expires in 30 minutes.",
    },
    de: {
      subject: `Bestätigen Sie Ihre neue E-Mail-Adresse für ${appName}`,
      intro: `Jemand möchte ein Konto bei ${appName} auf ${newEmail} umstellen. Um zu bestätigen, dass das Ihre Adresse ist, öffnen Sie den Link und geben Sie das Passwort des Kontos ein:`,
      action: 'Neue E-Mail-Adresse bestätigen',
      outro:
        'Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Es ändert sich nichts. Der Link ist 30 Minuten lang gültig.',
    },
  }[language];
  return composeMail({
    language,
    appName,
    ...words,
    link: `${appUrl}/confirm-email-change?token=${token}`,
  });
}

/**
 * To an address someone tried to move an account to while it already has one (no link to act
 * on), in the language of the account that address has.
 */
export function emailTakenMail(
  language: Language,
  appName: string,
  appUrl: string,
  email: string,
): MailContent {
  const words = {
    en: {
      subject: `Someone tried to move a ${appName} account to this email`,
      intro: `Someone asked to move a ${appName} account to ${email}, but this address already has an account, so nothing changed. If it was you, sign in with this address instead:`,
      action: `Sign in to ${appName}`,
      outro: "If it wasn't you, you can ignore this email.",
    },
    de: {
      subject: `Jemand wollte ein Konto bei ${appName} auf diese E-Mail-Adresse umstellen`,
      intro: `Jemand wollte ein Konto bei ${appName} auf ${email} umstellen, aber diese Adresse hat bereits ein Konto, daher hat sich nichts geändert. Wenn Sie das waren, melden Sie sich stattdessen mit dieser Adresse an:`,
      action: `Bei ${appName} anmelden`,
      outro: 'Wenn Sie das nicht waren, können Sie diese E-Mail ignorieren.',
    },
  }[language];
  return composeMail({ language, appName, ...words, link: `${appUrl}/` });
}

/** Where and when an account change came from, as a notice mail tells it. */
export interface ChangeOrigin {
  at: Date;
  ip: string;
  userAgent: string;
}

/** What a security notice says, in one language: `outro` defaults to the never-ask line. */
export interface NoticeWords {
  subject: string;
  what: string;
  outro?: string;
}

/** A security notice in both languages, and what it is (the outbox's `kind`). */
export type Notice = { kind: string } & Record<Language, NoticeWords>;

/** A browser's self-description, made safe to quote in a mail: one line, at most 200 characters. */
function quoteUserAgent(userAgent: string, unknown: string): string {
  // eslint-disable-next-line no-control-regex
  const line = userAgent.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  if (line === '') return unknown;
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** "2026-08-14 07:16 UTC" in English, "14.08.2026, 07:16 UTC" in German: never a local time. */
function noticeTime(language: Language, at: Date): string {
  const [date, time] = at.toISOString().slice(0, 16).split('T') as [string, string];
  if (language === 'en') return `${date} ${time} UTC`;
  const [year, month, day] = date.split('-');
  return `${day}.${month}.${year}, ${time} UTC`;
}

/**
 * A security notice: what changed, when, from which IP and browser, and what to do if it was not
 * the member. No token: the link only leads to the forgot-password page, so an attacker who reads
 * the mail gains nothing from it.
 */
export function securityNotice(
  language: Language,
  appName: string,
  appUrl: string,
  notice: NoticeWords,
  origin: ChangeOrigin,
): MailContent {
  const time = noticeTime(language, origin.at);
  const words = {
    en: {
      intro:
        `${notice.what} This happened on ${time}, ` +
        `from the IP address ${origin.ip || 'unknown'} with the browser: ${quoteUserAgent(origin.userAgent, 'an unknown browser')}. ` +
        'If that was you, there is nothing to do. If it was not, someone else can open your account: ' +
        'choose a new password now (this also signs out every session):',
      action: 'Choose a new password',
      outro: `${appName} will never ask for your password or your codes by email.`,
    },
    de: {
      intro:
        `${notice.what} Das geschah am ${time} ` +
        `von der IP-Adresse ${origin.ip || 'unbekannt'} mit dem Browser: ${quoteUserAgent(origin.userAgent, 'unbekannt')}. ` +
        'Wenn Sie das waren, ist nichts zu tun. Wenn nicht, kann jemand anderes Ihr Konto öffnen: ' +
        'Wählen Sie jetzt ein neues Passwort (damit werden auch alle Sitzungen abgemeldet):',
      action: 'Neues Passwort wählen',
      outro: `${appName} wird Sie nie per E-Mail nach Ihrem Passwort oder Ihren Codes fragen.`,
    },
  }[language];
  return composeMail({
    language,
    appName,
    subject: notice.subject,
    intro: words.intro,
    action: words.action,
    link: `${appUrl}/forgot-password`,
    outro: notice.outro ?? words.outro,
  });
}

/**
 * What the password-changed notice says: after a reset (all sessions end; on an account verified
 * by it, the passkeys, providers and two-step added before were removed too) or a change.
 */
export function passwordChangedNotice(
  appName: string,
  ended: 'all' | 'all-ways-in' | 'others',
): Notice {
  return {
    kind: 'passwordChanged',
    en: {
      subject: `Your ${appName} password was changed`,
      what: `The password of your ${appName} account was changed.`,
      outro: {
        all: 'Every session of your account ended when the password changed, so you may need to sign in again.',
        'all-ways-in':
          'This confirmed your email address. Every session of your account ended, and the passkeys, connected accounts and two-step sign-in added before the address was confirmed were removed: your new password is now the only way in. Add them again in Settings if they were yours.',
        others: 'Your other devices were signed out when the password changed.',
      }[ended],
    },
    de: {
      subject: `Ihr Passwort für ${appName} wurde geändert`,
      what: `Das Passwort Ihres Kontos bei ${appName} wurde geändert.`,
      outro: {
        all: 'Mit der Änderung des Passworts wurden alle Sitzungen Ihres Kontos beendet; melden Sie sich bei Bedarf erneut an.',
        'all-ways-in':
          'Damit ist Ihre E-Mail-Adresse bestätigt. Alle Sitzungen Ihres Kontos wurden beendet, und die Passkeys, verbundenen Konten und die Zwei-Schritt-Anmeldung, die vor der Bestätigung der Adresse hinzugefügt wurden, wurden entfernt: Ihr neues Passwort ist jetzt der einzige Weg in Ihr Konto. Fügen Sie sie in den Einstellungen wieder hinzu, wenn sie Ihre waren.',
        others: 'Mit der Änderung des Passworts wurden Ihre anderen Geräte abgemeldet.',
      }[ended],
    },
  };
}

/**
 * What the notice says when a sign-in code confirmed an account's address: as a verifying password
 * reset, every way in set before the address was confirmed is gone, the password included.
 */
export function confirmedByCodeNotice(appName: string): Notice {
  return {
    kind: 'emailConfirmedByCode',
    en: {
      subject: `Your ${appName} email was confirmed with a sign-in code`,
      what: `A sign-in code sent to this address confirmed the email of your ${appName} account.`,
      outro:
        'Every session of your account ended, and the password, passkeys, connected accounts and two-step sign-in set before the address was confirmed were removed: sign in with a code sent to this address, or choose a new password (Forgot password on the sign-in screen). Add the others again in Settings if they were yours.',
    },
    de: {
      subject: `Ihre E-Mail-Adresse für ${appName} wurde mit einem Anmeldecode bestätigt`,
      what: `Ein Anmeldecode, der an diese Adresse gesendet wurde, hat die E-Mail-Adresse Ihres Kontos bei ${appName} bestätigt.`,
      outro:
        'Alle Sitzungen Ihres Kontos wurden beendet, und das Passwort, die Passkeys, verbundenen Konten und die Zwei-Schritt-Anmeldung, die vor der Bestätigung der Adresse eingerichtet wurden, wurden entfernt: Melden Sie sich mit einem Code an, der an diese Adresse gesendet wird, oder wählen Sie ein neues Passwort („Passwort vergessen“ auf der Anmeldeseite). Fügen Sie die anderen in den Einstellungen wieder hinzu, wenn sie Ihre waren.',
    },
  };
}
