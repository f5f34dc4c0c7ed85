import { composeMail, type MailContent } from '../mail/service.js';

/** The mails of the account actions, each with its link. */

export function verificationMail(appName: string, appUrl: string, token: string): MailContent {
  return composeMail({
    appName,
    subject: `Verify your ${appName} email`,
    intro: `Thanks for joining ${appName}. Confirm your email address to finish creating your account:`,
    action: 'Verify email',
    link: `${appUrl}/verify-email?token=${token}`,
    outro:
      "If you didn't create an account, you can ignore this email. The link expires in 24 hours.",
  });
}

export function passwordResetMail(appName: string, appUrl: string, token: string): MailContent {
  return composeMail({
    appName,
    subject: `Reset your ${appName} password`,
    intro: `Someone asked to reset the password of your ${appName} account. To choose a new password, open:`,
    action: 'Reset password',
    link: `${appUrl}/reset-password?token=${token}`,
    outro:
      "If it wasn't you, ignore this email: your password stays as it is. The link expires in 30 minutes.",
  });
}

/**
 * An invitation an operator sent from the console: who invites, and the sign-up link that holds
 * the code (the code is in the outro too, for a sign-up page opened some other way).
 */
export function inviteMail(
  appName: string,
  link: string,
  code: string,
  inviter: string,
): MailContent {
  return composeMail({
    appName,
    subject: `You're invited to join ${appName}`,
    intro: `${inviter} invited you to join ${appName}. ${appName} is invite-only: this link holds your invite code. To create your account, open:`,
    action: `Join ${appName}`,
    link,
    outro: `Your invite code is ${code}; it works once. If you don't know who sent this, you can ignore this email.`,
  });
}

/**
 * A sign-in code (PocketBase's OTP mail, in the app's template): the code, shown on its own, and
 * how long it works. No link: the code is typed where it was asked for.
 */
export function signInCodeMail(appName: string, code: string, minutes: number): MailContent {
  return composeMail({
    appName,
    subject: `Your ${appName} sign-in code`,
    intro: `Someone asked to sign in to your ${appName} account with a code sent to this address. Your code is:`,
    code,
    outro: `The code works once and expires in ${minutes} minutes. Never give it to anyone: ${appName} will never ask you for it. If you didn't ask for a code, you can ignore this email.`,
  });
}

export function emailChangeMail(
  appName: string,
  appUrl: string,
  token: string,
  newEmail: string,
): MailContent {
  return composeMail({
    appName,
    subject: `Confirm your new ${appName} email`,
    intro: `Someone asked to move a ${appName} account to ${newEmail}. To confirm that this is your address, open the link and enter the account's password:`,
    action: 'Confirm new email',
    link: `${appUrl}/confirm-email-change?token=${token}`,
    outro:
      "If you didn't ask for this, ignore this email: nothing changes. The link expires in 30 minutes.",
  });
}

/** To an address someone tried to move an account to while it already has one (no link to act on). */
export function emailTakenMail(appName: string, appUrl: string, email: string): MailContent {
  return composeMail({
    appName,
    subject: `Someone tried to move a ${appName} account to this email`,
    intro: `Someone asked to move a ${appName} account to ${email}, but this address already has an account, so nothing changed. If it was you, sign in with this address instead:`,
    action: `Sign in to ${appName}`,
    link: `${appUrl}/`,
    outro: "If it wasn't you, you can ignore this email.",
  });
}

/** Where and when an account change came from, as a notice mail tells it. */
export interface ChangeOrigin {
  at: Date;
  ip: string;
  userAgent: string;
}

/** A browser's self-description, made safe to quote in a mail: one line, at most 200 characters. */
function quoteUserAgent(userAgent: string): string {
  // eslint-disable-next-line no-control-regex
  const line = userAgent.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  if (line === '') return 'an unknown browser';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** "2026-08-14 07:16 UTC" */
function noticeTime(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * A security notice: what changed, when, from which IP and browser, and what to do if it was not
 * the member. No token: the link only leads to the forgot-password page, so an attacker who reads
 * the mail gains nothing from it.
 */
export function securityNotice(
  appName: string,
  appUrl: string,
  notice: { subject: string; what: string; outro: string },
  origin: ChangeOrigin,
): MailContent {
  return composeMail({
    appName,
    subject: notice.subject,
    intro:
      `${notice.what} This happened on ${noticeTime(origin.at)}, ` +
      `from the IP address ${origin.ip || 'unknown'} with the browser: ${quoteUserAgent(origin.userAgent)}. ` +
      'If that was you, there is nothing to do. If it was not, someone else can open your account: ' +
      'choose a new password now (this also signs out every session):',
    action: 'Choose a new password',
    link: `${appUrl}/forgot-password`,
    outro: notice.outro,
  });
}

/**
 * What the password-changed notice says: after a reset (all sessions end; on an account verified
 * by it, the passkeys, providers and two-step added before were removed too) or a change.
 */
export function passwordChangedNotice(appName: string, ended: 'all' | 'all-ways-in' | 'others') {
  const outro = {
    all: 'Every session of your account ended when the password changed, so you may need to sign in again.',
    'all-ways-in':
      'This confirmed your email address. Every session of your account ended, and the passkeys, connected accounts and two-step sign-in added before the address was confirmed were removed: your new password is now the only way in. Add them again in Settings if they were yours.',
    others: 'Your other devices were signed out when the password changed.',
  }[ended];
  return {
    kind: 'passwordChanged',
    subject: `Your ${appName} password was changed`,
    what: `The password of your ${appName} account was changed.`,
    outro,
  };
}

/**
 * What the notice says when a sign-in code confirmed an account's address: as a verifying password
 * reset, every way in set before the address was confirmed is gone, the password included.
 */
export function confirmedByCodeNotice(appName: string) {
  return {
    kind: 'emailConfirmedByCode',
    subject: `Your ${appName} email was confirmed with a sign-in code`,
    what: `A sign-in code sent to this address confirmed the email of your ${appName} account.`,
    outro:
      'Every session of your account ended, and the password, passkeys, connected accounts and two-step sign-in set before the address was confirmed were removed: sign in with a code sent to this address, or choose a new password (Forgot password on the sign-in screen). Add the others again in Settings if they were yours.',
  };
}
