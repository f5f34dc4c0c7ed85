export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function compose(opts: {
  subject: string;
  intro: string;
  action: string;
  link: string;
  outro: string;
}): MailContent {
  const text = `${opts.intro}\n\n${opts.link}\n\n${opts.outro}\n`;
  const html = `<!doctype html>
<html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">
<p>${escapeHtml(opts.intro)}</p>
<p><a href="${escapeHtml(opts.link)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(opts.action)}</a></p>
<p>Or open this link: <a href="${escapeHtml(opts.link)}">${escapeHtml(opts.link)}</a></p>
<p>${escapeHtml(opts.outro)}</p>
</body></html>`;
  return { subject: opts.subject, text, html };
}

export function verificationMail(appName: string, appUrl: string, token: string): MailContent {
  return compose({
    subject: `Verify your ${appName} email`,
    intro: `Thanks for joining ${appName}. Confirm your email address to finish creating your account:`,
    action: 'Verify email',
    link: `${appUrl}/verify-email?token=${token}`,
    outro:
      "If you didn't create an account, you can ignore this email. The link expires in 24 hours.",
  });
}

export function passwordResetMail(appName: string, appUrl: string, token: string): MailContent {
  return compose({
    subject: `Reset your ${appName} password`,
    intro: `Someone asked to reset the password of your ${appName} account. To choose a new password, open:`,
    action: 'Reset password',
    link: `${appUrl}/reset-password?token=${token}`,
    outro:
      "If it wasn't you, ignore this email: your password stays as it is. The link expires in 30 minutes.",
  });
}
