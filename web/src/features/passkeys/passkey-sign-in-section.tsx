import { i18n } from '@lingui/core';
import { msg, t } from '@lingui/core/macro';
import { useEffect, useState } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { LiveMessage } from '../../components/ui/alert';
import { Button } from '../../components/ui/button';
import { statusOf } from '../../lib/api-error';
import { useAuth } from '../../lib/auth';

export const PASSKEY_DISMISSED_MESSAGE = msg`No passkey was used. If you have not added a passkey to your account yet, sign in with your password.`;
export const PASSKEY_REFUSED_MESSAGE = msg`This passkey cannot sign you in. It may have been removed from your account. Please sign in with your password.`;
export const PASSKEY_FAILED_MESSAGE = msg`Sign-in with a passkey failed. Please try again.`;
const TOO_MANY_MESSAGE = msg`Too many sign-in attempts. Please wait a minute and try again.`;

// Loaded on first use: the WebAuthn helpers stay out of the login screen's first download.
const loadCeremony = () => import('./ceremony');

/** Whether this browser has WebAuthn at all (checked without loading anything). */
function browserHasPasskeys(): boolean {
  return typeof window.PublicKeyCredential === 'function';
}

type Message = { tone: 'info' | 'error'; text: string } | null;

/** The options request's refusal (`PasskeyOptionsError`) or the server's answer to the passkey. */
function failureMessage(err: unknown): string {
  const status = statusOf(err);
  if (status === 429) return i18n._(TOO_MANY_MESSAGE);
  if (status === 400) return i18n._(PASSKEY_REFUSED_MESSAGE);
  return i18n._(PASSKEY_FAILED_MESSAGE);
}

/**
 * The login screen's passkey sign-in: **Sign in with a passkey** under the form, and the member's
 * passkeys offered in the email field's autofill list where the browser can (started as the
 * screen shows, ended when it goes or while the password form is sending). Whatever the server
 * answers decides what follows: `next`, the second step, or the Email Not Verified notice.
 */
export function PasskeySignInSection({
  next = '/home',
  paused,
  onUnverified,
  onSecondStep,
}: {
  /** Where a sign-in ends (an app path: where the visitor was going, or Home). */
  next?: string;
  /** The password form is sending: no autofill request meanwhile. */
  paused: boolean;
  onUnverified: (email: string) => void;
  onSecondStep: (mfaId: string) => void;
}) {
  const auth = useAuth();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<Message>(null);
  // A passkey picked from the autofill list that the server refused: the list is not offered
  // again on this visit (the button still is), so the same refusal cannot repeat by itself.
  const [autofillSpent, setAutofillSpent] = useState(false);
  const supported = browserHasPasskeys();

  async function finish(response: unknown, fromAutofill = false) {
    setBusy(true);
    setMessage(null);
    try {
      const result = await auth.signInWithPasskey(response);
      if (result === 'ok') {
        await navigate({ href: next });
      } else if (result.step === 'unverified') {
        onUnverified(result.email);
      } else {
        onSecondStep(result.mfaId);
      }
    } catch (err) {
      if (fromAutofill) setAutofillSpent(true);
      setMessage({ tone: 'error', text: failureMessage(err) });
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    if (!supported || paused || busy || autofillSpent) return;
    let active = true;
    void (async () => {
      const ceremony = await loadCeremony();
      if (!active) return;
      let response;
      try {
        response = await ceremony.autofillAssertion();
      } catch (err) {
        // Ended by this screen, or dismissed: the button and the password form are still there.
        if (!active || ceremony.isAborted(err) || ceremony.isDismissed(err)) return;
        console.warn('Passkey autofill is unavailable', err);
        return;
      }
      if (active && response) await finish(response, true);
    })();
    return () => {
      active = false;
      void loadCeremony().then((ceremony) => ceremony.cancelAutofill());
    };
    // `finish` only reads state that restarting on `paused` and `busy` already tracks.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [supported, paused, busy, autofillSpent]);

  async function onClick() {
    if (busy) return;
    setBusy(true);
    setMessage(null);
    const ceremony = await loadCeremony();
    let response;
    try {
      response = await ceremony.passkeyAssertion();
    } catch (err) {
      setBusy(false);
      if (ceremony.isAborted(err)) return;
      setMessage(
        ceremony.isDismissed(err)
          ? { tone: 'info', text: i18n._(PASSKEY_DISMISSED_MESSAGE) }
          : { tone: 'error', text: failureMessage(err) },
      );
      return;
    }
    await finish(response);
  }

  if (!supported) return null;
  return (
    <div className="flex flex-col gap-3">
      <LiveMessage tone="info">{message?.tone === 'info' ? message.text : null}</LiveMessage>
      <LiveMessage tone="error">{message?.tone === 'error' ? message.text : null}</LiveMessage>
      <Button variant="secondary" className="w-full" disabled={busy} onClick={onClick}>
        {busy ? t`Signing in...` : t`Sign in with a passkey`}
      </Button>
    </div>
  );
}
