/**
 * "Confirm it's you" (after GitHub's sudo mode): the server refuses a sensitive action of a session
 * that has not proved itself for a while with 403 `Confirm it's you to continue.` and changes
 * nothing (docs/api.md). Every request of the app goes through `lib/pb.ts`, which hands such a
 * refusal to `askToConfirm` and, once the member has confirmed, sends the request again; so no
 * screen wires this up, and an action added later gets it too.
 *
 * This module only connects the two sides: the dialog (features/reauth, mounted once by the app)
 * registers itself with `setConfirmer`. It stays free of the SDK and of React, because the app
 * loads it with the first screen.
 */

/** The server's message for an action that needs a recent confirmation. */
export const CONFIRM_IT_IS_YOU = "Confirm it's you to continue.";

/** Whether `err` is the server's "Confirm it's you" refusal (checked by shape: no SDK here). */
export function needsConfirmation(err: unknown): boolean {
  const failure = err as { status?: unknown; response?: { message?: unknown } } | null;
  return failure?.status === 403 && failure.response?.message === CONFIRM_IT_IS_YOU;
}

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
