import type { Language } from '../core/language.js';

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// Colours (contrast on their background, WCAG AA needs 4.5): text #18181b on white 17:1, muted
// #3f3f46 on white 10:1, footer #52525b on #f4f4f5 7:1, the button's white on #1d4ed8 6.7:1.
const FONT = "system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

/** The template's own words, in the recipient's language (docs/decisions/0072). */
const WORDS = {
  en: { greeting: 'Hello,', linkHelp: 'If the button does not work, open this link:' },
  de: {
    greeting: 'Guten Tag,',
    linkHelp: 'Falls die Schaltfläche nicht funktioniert, öffnen Sie diesen Link:',
  },
} satisfies Record<Language, { greeting: string; linkHelp: string }>;

/** What a mail asks the reader to do: open a link (a button), or type a code it shows. */
export type CallToAction = { action: string; link: string } | { code: string };

/**
 * A mail with one call to action, the same in both parts: the APP_NAME wordmark, a greeting, the
 * intro, a button-style link (44 px tall) with the full link below it as text that wraps (a
 * 250-character link must not widen a phone's view), the outro. Inline styles only, a 560 px
 * column, readable at 360 px; the plain-text part has the link on a line of its own. A mail with a
 * code instead (a sign-in code) shows it large, spaced and in a fixed-width font, and on a line of
 * its own in the plain-text part, where it is easy to read out and copy. `language` is the
 * recipient's: the greeting, the link's help and the page's `lang` follow it.
 */
export function composeMail(
  opts: {
    language: Language;
    appName: string;
    subject: string;
    intro: string;
    outro: string;
  } & CallToAction,
): MailContent {
  const words = WORDS[opts.language];
  const text = [
    opts.appName,
    '',
    words.greeting,
    '',
    opts.intro,
    '',
    'code' in opts ? opts.code : opts.link,
    '',
    opts.outro,
    '',
    `— ${opts.appName}`,
    '',
  ].join('\n');
  const html = `<!doctype html>
<html lang="${opts.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="supported-color-schemes" content="light">
<title>${escapeHtml(opts.subject)}</title>
</head>
<body style="margin:0;padding:0;background:#f4f4f5;color:#18181b;font-family:${FONT};font-size:16px;line-height:1.5">
<div role="article" aria-label="${escapeHtml(opts.subject)}" lang="${opts.language}" style="max-width:560px;margin:0 auto;padding:24px 12px;box-sizing:border-box">
<p style="margin:0 0 16px;font-size:22px;font-weight:700;letter-spacing:-0.01em;color:#1e3a8a">${escapeHtml(opts.appName)}</p>
<div style="background:#ffffff;border:1px solid #e4e4e7;border-radius:8px;padding:24px 20px;overflow-wrap:anywhere;word-break:break-word">
<p style="margin:0 0 16px">${escapeHtml(words.greeting)}</p>
<p style="margin:0 0 24px">${escapeHtml(opts.intro)}</p>
${callToAction(opts, words.linkHelp)}
<p style="margin:0">${escapeHtml(opts.outro)}</p>
</div>
<p style="margin:16px 0 0;font-size:13px;color:#52525b;text-align:center">${escapeHtml(opts.appName)}</p>
</div>
</body>
</html>
`;
  return { subject: opts.subject, text, html };
}

const MONO = "ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace";

/** The HTML of the call to action: the button and its link as text, or the code. */
function callToAction(opts: CallToAction, linkHelp: string): string {
  if ('code' in opts) {
    return `<p style="margin:0 0 24px;font-family:${MONO};font-size:32px;font-weight:700;letter-spacing:0.2em;color:#18181b">${escapeHtml(opts.code)}</p>`;
  }
  const link = escapeHtml(opts.link);
  return `<p style="margin:0 0 24px"><a href="${link}" style="display:inline-block;box-sizing:border-box;min-height:44px;padding:12px 20px;line-height:20px;background:#1d4ed8;color:#ffffff;border-radius:6px;font-weight:600;text-decoration:none">${escapeHtml(opts.action)}</a></p>
<p style="margin:0 0 24px;font-size:14px;color:#3f3f46">${escapeHtml(linkHelp)}<br><a href="${link}" style="color:#1d4ed8;word-break:break-all;overflow-wrap:anywhere">${link}</a></p>`;
}
