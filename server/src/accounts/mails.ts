import { composeMail, type MailContent } from '../mail/compose.js';

/** The mails of the account actions, each with its link. */

export function verificationMail(appName: string, appUrl: string, token: string): MailContent {
  return composeMail({
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
    subject: `Reset your ${appName} password`,
    intro: `Someone asked to reset the password of your ${appName} account. To choose a new password, open:`,
    action: 'Reset password',
    link: `${appUrl}/reset-password?token=${token}`,
    outro:
      "If it wasn't you, ignore this email: your password stays as it is. The link expires in 30 minutes.",
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

/** The notice after a password reset (no token: the link only leads to the forgot-password page). */
export function passwordChangedMail(
  appName: string,
  appUrl: string,
  origin: ChangeOrigin,
): MailContent {
  return composeMail({
    subject: `Your ${appName} password was changed`,
    intro:
      `The password of your ${appName} account was changed on ${noticeTime(origin.at)}, ` +
      `from the IP address ${origin.ip || 'unknown'} with the browser: ${quoteUserAgent(origin.userAgent)}. ` +
      'If that was you, there is nothing to do. If it was not, someone else can open your account: ' +
      'choose a new password now (this also signs out every session):',
    action: 'Choose a new password',
    link: `${appUrl}/forgot-password`,
    outro: `Every session of your account ended when the password changed, so you may need to sign in again.`,
  });
}
