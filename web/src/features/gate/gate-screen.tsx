import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import type { GatePassAnswer } from '../../../../contract/gate';
import { buttonClass } from '../../components/ui/button';
import { ScreenHeader, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { Spinner } from '../../components/ui/spinner';
import { serverText } from '../../lib/messages';
import { useAuth } from '../../lib/auth';
import { pb } from '../../lib/pb';

/**
 * Where the gate sends a browser that may not pass yet (docs/decisions/0061): `/gate?redirect=`
 * the address it was going to, written by the proxy as it is (not encoded). A guest signs in
 * first (any way in) and comes back; a signed-in member gets the gate cookie and goes back.
 */
export function GateScreen() {
  usePageTitle(t`Sign In to an App`);
  const auth = useAuth();
  const user = auth.user();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  const redirect = redirectOf(window.location.search);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    if (!user) {
      void navigate({
        to: '/',
        search: { redirect: `/gate?redirect=${redirect}` },
        replace: true,
      });
      return;
    }
    pb.send<GatePassAnswer>('/api/gatehouse/gate/pass', {
      method: 'POST',
      body: { redirect },
    }).then(
      (answer) => window.location.replace(answer.redirect),
      (err: unknown) => setError(serverText(err) ?? t`Something went wrong. Please try again.`),
    );
  }, [navigate, redirect, user]);

  if (!error) {
    return (
      <ScreenShell>
        <ScreenHeader title={t`Signing in…`} />
        <Spinner label={t`Signing in`} />
      </ScreenShell>
    );
  }
  return (
    <ScreenShell>
      <ScreenHeader title={t`You Cannot Go There`} description={error} />
      <Link to="/home" className={buttonClass('secondary', 'self-start')}>
        <Trans>Go to Home</Trans>
      </Link>
    </ScreenShell>
  );
}

/** The address after `redirect=`, as the proxy wrote it; decoded once when it came encoded. */
function redirectOf(search: string): string {
  const at = search.indexOf('redirect=');
  if (at === -1) return '';
  const raw = search.slice(at + 'redirect='.length);
  if (!/^https?%3A/i.test(raw)) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
