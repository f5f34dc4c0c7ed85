/**
 * The provider's few pages of its own (oidc-provider renders them; everything else a member sees is
 * the web app's): "Sign out of {App}?", "You have signed out", and the error page for a request
 * that cannot go on (a wrong redirect address, an unknown app). Plain HTML, no script, readable
 * light and dark.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;padding:3rem 1rem;line-height:1.5}
main{max-width:28rem;margin:0 auto}
h1{font-size:1.5rem;margin:0 0 1rem}
button,a.button{display:inline-block;font:inherit;padding:.5rem 1rem;margin:.25rem .5rem .25rem 0;border-radius:.375rem;border:1px solid currentColor;background:transparent;color:inherit;cursor:pointer;text-decoration:none}
button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}
:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

/** RP-initiated logout's question; `form` is the provider's hidden form (id op.logoutForm). */
export function logoutPage(appName: string, clientName: string | undefined, form: string): string {
  const app = clientName ? escapeHtml(clientName) : 'this app';
  return page(
    `Sign out · ${appName}`,
    `<h1>Sign out of ${app}?</h1>
${form}
<p>You stay signed in to ${escapeHtml(appName)} itself.</p>
<button class="primary" type="submit" form="op.logoutForm" value="yes" name="logout" autofocus>Sign out</button>
<button type="submit" form="op.logoutForm">Stay signed in</button>`,
  );
}

export function signedOutPage(
  appName: string,
  appUrl: string,
  clientName: string | undefined,
): string {
  const app = clientName ? escapeHtml(clientName) : 'the app';
  return page(
    `Signed out · ${appName}`,
    `<h1>You have signed out of ${app}</h1>
<p><a class="button" href="${escapeHtml(appUrl)}/home">Go to ${escapeHtml(appName)}</a></p>`,
  );
}

/** What went wrong, in the provider's words (`error`, `error_description`), escaped. */
export function errorPage(appName: string, appUrl: string, out: Record<string, string>): string {
  const description = out.error_description ?? '';
  return page(
    `Something went wrong · ${appName}`,
    `<h1>This sign-in cannot go on</h1>
<p>The app that sent you here asked for something ${escapeHtml(appName)} does not allow.</p>
<p><code>${escapeHtml(out.error ?? 'error')}</code>${description ? `: ${escapeHtml(description)}` : ''}</p>
<p><a class="button" href="${escapeHtml(appUrl)}/home">Go to ${escapeHtml(appName)}</a></p>`,
  );
}
