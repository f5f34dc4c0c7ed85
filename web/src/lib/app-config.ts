/**
 * Values the server writes into index.html at start (`<meta name="application-name">` and
 * `<meta name="app-url">`). In dev, or when APP_URL is empty, the app falls back to its own origin.
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
