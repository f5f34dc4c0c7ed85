/**
 * "Confirm it's you" (after GitHub's sudo mode): the server refuses a sensitive action of a session
 * that has not proved itself for a while with 403 `Confirm it's you to continue.` and changes
 * nothing (docs/api.md). Every request of the app goes through `lib/pb.ts`, which hands such a
 * refusal to `askToConfirm` and, once the member has confirmed, sends the request again
 * (`confirmed`); so no screen wires this up, and an action added later gets it too.
 *
 * This module only connects the two sides: the dialog (features/reauth, mounted once by the app)
 * registers itself with `setConfirmer`. The app loads it with the first screen, so it is only this:
 * no SDK, no React, not even the message (that is `lib/api-error.ts`'s).
 */

/** Asks the member to confirm it's them; true once they did, false when they cancelled. */
export type Confirmer = () => Promise<boolean>;

let confirmer: Confirmer | null = null;
let asking: Promise<boolean> | null = null;

/** The dialog's side: it answers `askToConfirm` from now on (until the returned call). */
export function setConfirmer(next: Confirmer): () => void {
  confirmer = next;
  return () => {
    if (confirmer === next) confirmer = null;
  };
}

/**
 * Opens the dialog, or joins the one already open: two actions refused at once ask once. Null
 * when nothing can ask (no dialog is mounted): the refusal then stands as the server gave it.
 */
export function askToConfirm(): Promise<boolean> | null {
  if (!confirmer) return null;
  asking ??= confirmer().finally(() => {
    asking = null;
  });
  return asking;
}
