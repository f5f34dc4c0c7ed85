/**
 * Values the server writes into index.html at start (`<meta name="application-name">`,
 * `<meta name="app-url">`, and `<meta name="sign-in-providers">` when providers are configured).
 * In dev, or when APP_URL is empty, the app falls back to its own origin.
 */
function readMeta(name: string): string {
  if (typeof document === 'undefined') return '';
  const el = document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`);
  return el?.content.trim() ?? '';
}

export function appName(): string {
  return readMeta('application-name') || 'Gatehouse';
}

export function appUrl(): string {
  const fromServer = readMeta('app-url');
  const base = fromServer || window.location.origin;
  return base.replace(/\/+$/, '');
}

export function pageTitle(screen: string): string {
  return `${screen} · ${appName()}`;
}

export function inviteLink(code: string): string {
  return `${appUrl()}/signup?code=${encodeURIComponent(code)}`;
}

/** A sign-in provider the server is configured with (OAUTH2_PROVIDERS). */
export interface SignInProvider {
  name: string;
  displayName: string;
}

/** The configured sign-in providers, in the server's order; none when the server names none. */
export function signInProviders(): SignInProvider[] {
  const raw = readMeta('sign-in-providers');
  if (!raw) return [];
  try {
    const list = JSON.parse(raw) as unknown;
    if (!Array.isArray(list)) return [];
    return list.filter(
      (p): p is SignInProvider => typeof p?.name === 'string' && typeof p?.displayName === 'string',
    );
  } catch {
    return [];
  }
}
