import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useCurrentUser } from '../lib/auth';
import { isViewAsSession, readStoredSession, tokenClaim } from '../lib/session';
import { Button } from './ui/button';

/**
 * The bar at the top of every signed-in screen while an operator views as a member
 * (docs/decisions/0056): "Viewing as {email}" and Stop, which ends the view and returns to the
 * member's console page; when the view's time is up it stops by itself. A view's token is the one
 * auth-refresh does not renew (`refreshable: false`, PocketBase's impersonate token). The app shell
 * loads this on signed-in screens only, and it loads `lib/view-as.ts` (and the SDK) only for a
 * view: for a member's own session it shows nothing and costs nothing more.
 */
export default function ViewingAsBar() {
  const user = useCurrentUser();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [stopping, setStopping] = useState(false);
  const token = readStoredSession().token;
  const viewing = user !== null && isViewAsSession(token);

  async function stop() {
    setStopping(true);
    try {
      const { stopViewing } = await import('../lib/view-as');
      const memberId = await stopViewing(token);
      queryClient.clear();
      await (memberId
        ? navigate({ to: '/admin/members/$id', params: { id: memberId } })
        : navigate({ to: '/' }));
    } finally {
      setStopping(false);
    }
  }

  useEffect(() => {
    if (!viewing) return;
    // Gives the operator their session back should the view end elsewhere (lib/view-as.ts).
    void import('../lib/view-as');
    const exp = tokenClaim(token, 'exp');
    const left = (typeof exp === 'number' ? exp * 1000 : 0) - Date.now();
    const timer = window.setTimeout(() => void stop(), Math.max(left, 0));
    return () => window.clearTimeout(timer);
    // One timer per view (its token); `stop` reads nothing that changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [viewing, token]);

  if (!viewing) return null;
  return (
    <section
      aria-label={t`Viewing as a member`}
      className="border-b border-amber-300 bg-amber-100 text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-50"
    >
      <div className="mx-auto flex w-full max-w-2xl flex-wrap items-center justify-between gap-x-3 gap-y-1 px-4 py-2">
        <p className="min-w-0 text-sm font-semibold wrap-anywhere">
          <Trans>Viewing as {user.email}</Trans>
        </p>
        <Button
          variant="secondary"
          className="min-w-24"
          disabled={stopping}
          onClick={() => void stop()}
        >
          {stopping ? t`Stopping...` : t`Stop`}
        </Button>
      </div>
    </section>
  );
}
