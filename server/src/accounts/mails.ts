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
