import { useState } from 'react';

/**
 * Which of the member's codes were copied or shared during this visit (sessionStorage, per
 * member: a reload keeps the marks, a new visit starts clean), so nobody sends one code twice.
 */
type Mark = 'copied' | 'shared';

const keyOf = (userId: string) => `gatehouse.sentInvites.${userId}`;

function read(userId: string): Record<string, Mark> {
  try {
    const parsed: unknown = JSON.parse(window.sessionStorage.getItem(keyOf(userId)) ?? '{}');
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, Mark>) : {};
  } catch {
    return {};
  }
}

export function useSentMarks(userId: string) {
  const [marks, setMarks] = useState(() => read(userId));
  return {
    of: (code: string): Mark | undefined => marks[code],
    mark(code: string, mark: Mark) {
      // Shared says more than copied: a later copy does not hide it.
      const next = { ...marks, [code]: marks[code] === 'shared' ? 'shared' : mark };
      setMarks(next);
      try {
        window.sessionStorage.setItem(keyOf(userId), JSON.stringify(next));
      } catch {
        // Storage blocked: the marks last until the page is left.
      }
    },
  };
}
