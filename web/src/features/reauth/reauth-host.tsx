import { Suspense, useEffect, useState, type ComponentType } from 'react';
import { QueryScope } from '../../components/query-scope';
import type { Auth } from '../../lib/auth';
import { setConfirmer } from '../../lib/reauth';

type DialogProps = {
  auth: Auth;
  onDone: (confirmed: boolean) => void;
  returnFocusTo: HTMLElement | null;
};

/** The dialog, once loaded: it comes with the first refusal, not with the first screen. */
let ConfirmDialog: ComponentType<DialogProps> | null = null;

/** What is open: the answer for the waiting actions, and where focus goes back afterwards. */
interface Asking {
  done: (confirmed: boolean) => void;
  opener: HTMLElement | null;
}

/**
 * Where "Confirm it's you" opens: mounted once by the app (`app.tsx`), it answers every
 * `askToConfirm` of `lib/reauth.ts` (a request the server refused for a confirmation) with the
 * dialog, loaded on first use. It closes as cancelled when the session ends meanwhile.
 *
 * Focus goes back to the control that started the action. That control is usually disabled while
 * its request runs, which takes focus off it before the dialog opens, so the host remembers the
 * last element that had focus.
 */
export function ReauthHost({ auth }: { auth: Auth }) {
  const [asking, setAsking] = useState<Asking | null>(null);

  useEffect(() => {
    let lastFocused: HTMLElement | null = null;
    const note = (event: FocusEvent) => {
      if (event.target instanceof HTMLElement) lastFocused = event.target;
    };
    document.addEventListener('focusin', note);
    let open: Asking['done'] | null = null;
    const stop = setConfirmer(async () => {
      const focused = document.activeElement;
      const opener =
        focused instanceof HTMLElement && focused !== document.body ? focused : lastFocused;
      ConfirmDialog ??= (await import('./confirm-dialog')).ConfirmDialog;
      return new Promise<boolean>((resolve) => {
        const done = (confirmed: boolean) => {
          if (open === done) open = null;
          setAsking(null);
          resolve(confirmed);
        };
        open = done;
        setAsking({ done, opener });
      });
    });
    return () => {
      document.removeEventListener('focusin', note);
      stop();
      // Unmounted with the dialog open: the actions waiting for it end as cancelled.
      open?.(false);
    };
  }, []);

  useEffect(() => {
    if (!asking) return;
    return auth.subscribe(() => {
      if (!auth.isAuthenticated()) asking.done(false);
    });
  }, [asking, auth]);

  return asking && ConfirmDialog ? (
    <Suspense fallback={null}>
      <QueryScope>
        <ConfirmDialog auth={auth} onDone={asking.done} returnFocusTo={asking.opener} />
      </QueryScope>
    </Suspense>
  ) : null;
}
