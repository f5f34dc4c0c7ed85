import type { AuthAnswer } from '../../../contract/records';
import { pb } from './pb';
import type { UserRecord } from './session';

/**
 * View as member (docs/decisions/0056): an operator signs this browser in as a member for a while,
 * for support. The operator's own session is kept aside in this tab's sessionStorage (never
 * localStorage: it must not outlive the tab, nor be found by another one), the SDK's store takes
 * the member's short token, and Stop ends that session on the server and gives the operator theirs
 * back. Besides `lib/auth.ts`, this module is the one that writes `pb.authStore`; it is loaded only
 * on signed-in screens (with the bar, `components/viewing-as-bar.tsx`) and by the console.
 */

/** The operator's session while they view as a member, and whom they view. */
interface Kept {
  token: string;
  record: UserRecord;
  memberId: string;
}

const KEPT_KEY = 'gatehouse_view_as';

function readKept(): Kept | null {
  try {
    const kept = JSON.parse(window.sessionStorage.getItem(KEPT_KEY) ?? 'null') as Kept | null;
    return kept && typeof kept.token === 'string' && kept.record ? kept : null;
  } catch {
    return null;
  }
}

function forgetKept() {
  try {
    window.sessionStorage.removeItem(KEPT_KEY);
  } catch {
    // Storage refused: nothing was kept.
  }
}

/** Whether this tab's session is the view it started (the member's, with the operator's kept). */
function viewing(kept: Kept | null): kept is Kept {
  return kept !== null && pb.authStore.record?.id === kept.memberId;
}

/**
 * Starts viewing as the member: the server's impersonate (the SDK's
 * `pb.collection('users').impersonate(id, 0)`, sent through the app's client so that a stale
 * session is asked "Confirm it's you" first). Throws the server's refusal; nothing changes then.
 */
export async function startViewingAs(memberId: string): Promise<void> {
  const operator = pb.authStore.record as UserRecord | null;
  const answer = await pb.send<AuthAnswer>(
    `/api/collections/users/impersonate/${encodeURIComponent(memberId)}`,
    { method: 'POST', body: { duration: 0 } },
  );
  // An operator is never viewed as: this session is the operator's own.
  if (operator) {
    const kept: Kept = { token: pb.authStore.token, record: operator, memberId };
    window.sessionStorage.setItem(KEPT_KEY, JSON.stringify(kept));
  }
  pb.authStore.save(answer.token, answer.record);
}

/**
 * Stop: ends the view `viewToken` names on the server (its session is deleted; a view already over
 * is fine) and gives the operator their session back. Returns the member's id, for their console
 * page, or null when this tab kept no operator session (the view was started in another tab, whose
 * store this one shares): the view ends all the same, and this tab is signed out.
 */
export async function stopViewing(viewToken: string): Promise<string | null> {
  const kept = readKept();
  try {
    await pb.send('/api/gatehouse/logout', {
      method: 'POST',
      headers: { Authorization: viewToken },
    });
  } catch {
    // Already ended (its time was up, or the member signed it out): nothing left to end.
  }
  forgetKept();
  if (kept) {
    pb.authStore.save(kept.token, kept.record);
    return kept.memberId;
  }
  if (pb.authStore.token === viewToken) pb.authStore.clear();
  return null;
}

// The view ended without Stop (the member signed it out, the operator was disabled): the app has
// ended the local session; the operator gets theirs back instead of the login screen. A kept
// session whose view is no longer this tab's (the tab slept past its end) is dropped.
let wasViewing = viewing(readKept());
if (!wasViewing) forgetKept();
pb.authStore.onChange((token) => {
  const kept = readKept();
  const ended = wasViewing && !token;
  wasViewing = viewing(kept);
  if (!ended || !kept) return;
  forgetKept();
  pb.authStore.save(kept.token, kept.record);
});
