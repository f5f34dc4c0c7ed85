export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A mail with one call to action: an intro, the button-style link (also as text), an outro. */
export function composeMail(opts: {
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
