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

export function emailChangeMail(
  appName: string,
  appUrl: string,
  token: string,
  newEmail: string,
): MailContent {
  return composeMail({
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
    subject: `Someone tried to move a ${appName} account to this email`,
    intro: `Someone asked to move a ${appName} account to ${email}, but this address already has an account, so nothing changed. If it was you, sign in with this address instead:`,
    action: `Sign in to ${appName}`,
    link: `${appUrl}/`,
    outro: "If it wasn't you, you can ignore this email.",
  });
}

/** Where and when a credential changed, for the notice mails. */
export interface ChangeContext {
  when: string;
  ip: string;
  userAgent: string;
}

/**
 * A security notice: what changed, when and from where, and what to do if it was not the member
 * (reset the password; the link page asks for the email, so the mail carries no live token).
 */
export function securityNotice(
  appName: string,
  appUrl: string,
  subject: string,
  what: string,
  change: ChangeContext,
): MailContent {
  const from = change.userAgent ? `${change.ip}, ${change.userAgent}` : change.ip;
  return composeMail({
    subject,
    intro: `${what} On ${change.when} (UTC), from ${from}. If this was you, there is nothing to do. If it wasn't, reset your password now:`,
    action: 'Reset your password',
    link: `${appUrl}/forgot-password`,
    outro: `Resetting the password signs out every device. ${appName} will never ask for your password by email.`,
  });
}
