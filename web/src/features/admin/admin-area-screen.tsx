import { t } from '@lingui/core/macro';
import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useRouterState } from '@tanstack/react-router';
import { Card } from '../../components/ui/card';
import { NavButton } from '../../components/ui/nav-button';
import { ScreenHeader, ScreenShell, usePageTitle } from '../../components/ui/screen';
import { Spinner } from '../../components/ui/spinner';
import { focusRing } from '../../components/ui/button';
import { cn } from '../../components/ui/cn';
import { useCurrentUser } from '../../lib/auth';
import { serverText } from '../../lib/messages';
import { meQueryOptions } from './api';

const SECTIONS = () =>
  [
    { to: '/admin', label: t`Members` },
    { to: '/admin/tree', label: t`Invite Tree` },
    { to: '/admin/mail', label: t`Mail` },
    { to: '/admin/security-log', label: t`Security Log` },
    { to: '/admin/logs', label: t`Logs` },
    { to: '/admin/crons', label: t`Crons` },
    { to: '/admin/settings', label: t`Settings` },
    { to: '/admin/backups', label: t`Backups` },
    { to: '/admin/apps', label: t`Apps` },
  ] as const;

/**
 * The frame of every /admin screen: the console's navigation above the screen, for operators
 * only. Anyone else sees Not Allowed (the server refuses them anyway; this only says so clearly).
 */
export function AdminAreaScreen({ children }: { children: ReactNode }) {
  const user = useCurrentUser();
  const me = useQuery({ ...meQueryOptions(user?.id ?? ''), enabled: user !== null });
  // Members is a table that takes the screen's whole width; the other screens stay a column.
  const onMembers = useRouterState({ select: (state) => state.location.pathname === '/admin' });

  if (me.isPending) return <Spinner label={t`Loading...`} />;
  if (me.isError) {
    return (
      <AdminProblem title={t`Something went wrong!`}>
        {serverText(me.error) ?? t`The operator console could not be loaded.`}
      </AdminProblem>
    );
  }
  if (!me.data.isOperator) {
    return (
      <AdminProblem title={t`Not Allowed`}>
        {t`Only operators can use the operator console. Ask the person who runs this community if you need it.`}
      </AdminProblem>
    );
  }
  return (
    <ScreenShell width={onMembers ? 'full' : 'wide'}>
      <AdminNav />
      {children}
    </ScreenShell>
  );
}

function AdminProblem({ title, children }: { title: string; children: ReactNode }) {
  usePageTitle(title);
  return (
    <ScreenShell>
      <ScreenHeader title={title} />
      <Card className="flex flex-col gap-4">
        <p className="text-slate-700 dark:text-slate-300">{children}</p>
        <NavButton to="/home">{t`Back to Home`}</NavButton>
      </Card>
    </ScreenShell>
  );
}

function AdminNav() {
  // A member's page belongs to Members: it stays marked there.
  const onMemberPage = useRouterState({
    select: (state) => state.location.pathname.startsWith('/admin/members/'),
  });
  return (
    <nav aria-label={t`Operator console`} className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm font-semibold text-slate-700 dark:text-slate-300">{t`Admin`}</p>
        <Link
          to="/home"
          className={cn(
            'rounded-sm text-sm font-medium text-blue-700 underline underline-offset-2 dark:text-blue-300',
            focusRing,
          )}
        >
          {t`Back to Home`}
        </Link>
      </div>
      <ul className="grid grid-cols-2 gap-2 sm:grid-cols-3 md:grid-cols-5">
        {SECTIONS().map((section) => (
          <li key={section.to}>
            <Link
              to={section.to}
              activeOptions={{ exact: true, includeSearch: false }}
              aria-current={section.to === '/admin' && onMemberPage ? 'page' : undefined}
              className={cn(
                'flex min-h-11 items-center justify-center rounded-md border px-3 py-2 text-center text-sm font-semibold',
                'border-slate-300 bg-white text-slate-900 hover:bg-slate-100 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800',
                'aria-[current=page]:border-blue-700 aria-[current=page]:bg-blue-700 aria-[current=page]:text-white dark:aria-[current=page]:border-blue-600 dark:aria-[current=page]:bg-blue-600',
                focusRing,
              )}
            >
              {section.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
