import { useSyncExternalStore } from 'react';
import { pb } from './pb';
import { storedUser, type UserRecord } from './session';

function subscribe(onChange: () => void): () => void {
  return pb.authStore.onChange(onChange);
}

let cachedKey = '';
let cachedUser: UserRecord | null = null;
function snapshot(): UserRecord | null {
  const user = storedUser();
  const key = `${pb.authStore.token}|${user ? JSON.stringify(user) : ''}`;
  if (key !== cachedKey) {
    cachedKey = key;
    cachedUser = user;
  }
  return cachedUser;
}

/** The signed-in, verified user, re-rendering when the session changes. */
export function useCurrentUser(): UserRecord | null {
  return useSyncExternalStore(subscribe, snapshot, () => null);
}
