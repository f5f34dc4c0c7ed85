import { useNavigate, useRouter } from '@tanstack/react-router';
import { Button } from './button';
import type { ComponentProps } from 'react';

type To = '/' | '/home' | '/profile' | '/settings' | '/whats-new';

/** A button that navigates (docs/product.md names these as buttons) and preloads its screen on intent. */
export function NavButton({
  to,
  onClick,
  ...rest
}: { to: To } & Omit<ComponentProps<typeof Button>, 'type'>) {
  const navigate = useNavigate();
  const router = useRouter();
  const preload = () => {
    router.preloadRoute({ to }).catch(() => undefined);
  };
  return (
    <Button
      {...rest}
      onMouseEnter={preload}
      onFocus={preload}
      onClick={(event) => {
        onClick?.(event);
        void navigate({ to });
      }}
    />
  );
}
