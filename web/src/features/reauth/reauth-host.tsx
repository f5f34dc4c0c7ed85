import { useEffect, useState, type ComponentType } from 'react';
import type { Auth } from '../../lib/auth';
import { setConfirmer } from '../../lib/reauth';

type DialogProps = { auth: Auth; onDone: (confirmed: boolean) => void };

/** The dialog, once loaded: it comes with the first refusal, not with the first screen. */
let ConfirmDialog: ComponentType<DialogProps> | null = null;

/**
 * Where "Confirm it's you" opens: mounted once by the app (`app.tsx`), it answers every
 * `askToConfirm` of `lib/reauth.ts` (a request the server refused for a confirmation) with the
 * dialog, loaded on first use. It closes as cancelled when the session ends meanwhile.
 */
export function ReauthHost({ auth }: { auth: Auth }) {
  const [answer, setAnswer] = useState<((confirmed: boolean) => void) | null>(null);

  useEffect(() => {
    let open: ((confirmed: boolean) => void) | null = null;
    const stop = setConfirmer(async () => {
      ConfirmDialog ??= (await import('./confirm-dialog')).ConfirmDialog;
      return new Promise<boolean>((resolve) => {
        const done = (confirmed: boolean) => {
          if (open === done) open = null;
          setAnswer(null);
          resolve(confirmed);
        };
        open = done;
        setAnswer(() => done);
      });
    });
    return () => {
      stop();
      // Unmounted with the dialog open: the actions waiting for it end as cancelled.
      open?.(false);
    };
  }, []);

  useEffect(() => {
    if (!answer) return;
    return auth.subscribe(() => {
      if (!auth.isAuthenticated()) answer(false);
    });
  }, [answer, auth]);

  return answer && ConfirmDialog ? <ConfirmDialog auth={auth} onDone={answer} /> : null;
}
