/**
 * Where a visitor was going when a signed-in screen sent them to the login screen (the `redirect`
 * search param), read back only as a path of this app: never another origin (`//evil.example`,
 * `https://…`, `/\evil.example`), so the param cannot be used to send people elsewhere after
 * they sign in (docs/decisions/0032-app-shell-and-ways-forward.md).
 */
const BASE = 'http://app.invalid';

export function safeReturnPath(value: unknown): string | null {
  if (typeof value !== 'string' || !value.startsWith('/')) return null;
  // Browsers read `//host` and `/\host` as another origin; control characters are never ours.
  if (value.startsWith('//') || value.includes('\\') || hasControlCharacter(value)) return null;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE) return null;
  // The API and the login screen itself are no place to come back to.
  if (url.pathname === '/' || url.pathname.startsWith('/api/')) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** Where a sign-in ends: the screen the member was going to, else Home. */
export function afterSignIn(returnTo: string | undefined): string {
  return safeReturnPath(returnTo) ?? '/home';
}
