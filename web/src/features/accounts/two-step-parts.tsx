import { useEffect, useRef, type ReactNode } from 'react';

/** A step's heading (h3), focused when it appears. */
export function StepHeading({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <h3 ref={ref} tabIndex={-1} className="text-base font-semibold focus:outline-none">
      {children}
    </h3>
  );
}

export const wideButton = 'w-full sm:w-auto sm:min-w-56';
