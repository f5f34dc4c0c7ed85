import {
  browserSupportsWebAuthnAutofill,
  startAuthentication,
  WebAuthnAbortService,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { isAbort } from '../../lib/api-error';

/**
 * The browser's side of a passkey sign-in: the server's request options, then the browser's prompt
 * (or its autofill list). Free of the SDK on purpose: the login screen starts passkey autofill as it
 * loads, and the SDK (about 12 KB gzip) stays out of a visitor's first download until a passkey is
 * picked (docs/decisions/0028). The answer goes to the session's owner (`auth.signInWithPasskey`).
 */

/** A refused options request, with the server's status (429: too many). */
export class PasskeyOptionsError extends Error {
  constructor(readonly status: number) {
    super(`Passkey sign-in options answered ${status}`);
    this.name = 'PasskeyOptionsError';
  }
}

async function signInOptions(): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const answer = await fetch('/api/gatehouse/passkey-login/options', {
    method: 'POST',
    headers: { Accept: 'application/json' },
  });
  if (!answer.ok) throw new PasskeyOptionsError(answer.status);
  return (await answer.json()) as PublicKeyCredentialRequestOptionsJSON;
}

/** The browser's prompt: the member picks one of their passkeys for this site and unlocks it. */
export async function passkeyAssertion(): Promise<AuthenticationResponseJSON> {
  cancelAutofill();
  return startAuthentication({ optionsJSON: await signInOptions() });
}

/** Counts autofill requests started and ended: one ended while it waited for its options never starts. */
let autofillRound = 0;
let autofillPending = false;

function aborted(): Error {
  const error = new Error('Passkey autofill was ended');
  error.name = 'AbortError';
  return error;
}

/**
 * Offers the member's passkeys in the browser's autofill list of the email field (its
 * `autocomplete` ends in `webauthn`). Resolves when one is picked; null when the browser cannot do
 * this. Rejects as the prompt does, and when `cancelAutofill` or `passkeyAssertion` ends it.
 */
export async function autofillAssertion(): Promise<AuthenticationResponseJSON | null> {
  const round = ++autofillRound;
  if (!(await browserSupportsWebAuthnAutofill())) return null;
  const optionsJSON = await signInOptions();
  if (round !== autofillRound) throw aborted();
  autofillPending = true;
  try {
    return await startAuthentication({ optionsJSON, useBrowserAutofill: true });
  } finally {
    if (round === autofillRound) autofillPending = false;
  }
}

/** Ends a waiting autofill request (the screen is left, or the password form is used). */
export function cancelAutofill(): void {
  autofillRound += 1;
  if (autofillPending) WebAuthnAbortService.cancelCeremony();
  autofillPending = false;
}

/**
 * The member closed the browser's prompt, or it timed out, or no passkey of theirs was there:
 * browsers answer all three alike (`NotAllowedError`), so a site cannot tell them apart.
 */
export function isDismissed(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'NotAllowedError';
}

/** The request was ended by the page itself (another prompt, or the screen was left). */
export function isAborted(err: unknown): boolean {
  return isAbort(err) || (err as { code?: unknown } | null)?.code === 'ERROR_CEREMONY_ABORTED';
}
