import { plural } from '@lingui/core/macro';
import { useEffect, useRef, useState } from 'react';

/**
 * Counts down once per second while `active`, then calls `onDone` once. Returns the seconds left,
 * so the screen can show them.
 */
export function useCountdown(seconds: number, active: boolean, onDone: () => void): number {
  const [left, setLeft] = useState(seconds);
  const done = useRef(onDone);
  useEffect(() => {
    done.current = onDone;
  });

  useEffect(() => {
    if (!active) {
      setLeft(seconds);
      return;
    }
    const startedAt = Date.now();
    const timer = setInterval(() => {
      const remaining = Math.max(0, seconds - Math.floor((Date.now() - startedAt) / 1000));
      setLeft(remaining);
      if (remaining === 0) {
        clearInterval(timer);
        done.current();
      }
    }, 250);
    return () => clearInterval(timer);
  }, [active, seconds]);

  return left;
}

export function redirectText(secondsLeft: number): string {
  return plural(secondsLeft, {
    one: 'Opening the sign-in screen in # second...',
    other: 'Opening the sign-in screen in # seconds...',
  });
}
