/**
 * What the browser can tell from a mailed link's token on its own, before asking the server: its
 * claims are readable (a JWT's payload is not secret, only signed). A token that cannot be read,
 * is of another kind, or is past its `exp` can not work, so the screen says so at once; one that
 * looks fine may still have been used, which only the server knows
 * (docs/decisions/0032-app-shell-and-ways-forward.md).
 */
export interface LinkToken {
  /** The account's email when the link was made (to offer a new link). */
  email: string | null;
  /** An email-change link's new address (shown on its screen, and filled in at sign-in). */
  newEmail: string | null;
  usable: boolean;
}

const text = (value: unknown) => (typeof value === 'string' && value ? value : null);

export function readLinkToken(
  token: string,
  type: 'verification' | 'passwordReset' | 'emailChange',
  now = Date.now(),
): LinkToken {
  const part = token.split('.')[1];
  const none = { email: null, newEmail: null, usable: false };
  if (!part) return none;
  let claims: { type?: unknown; exp?: unknown; email?: unknown; newEmail?: unknown };
  try {
    claims = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/'))) as typeof claims;
  } catch {
    return none;
  }
  const usable = claims.type === type && typeof claims.exp === 'number' && claims.exp > now / 1000;
  return { email: text(claims.email), newEmail: text(claims.newEmail), usable };
}
