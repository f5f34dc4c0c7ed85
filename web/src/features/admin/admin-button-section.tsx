import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { buttonClass } from '../../components/ui/button';
import type { UserRecord } from '../../lib/session';
import { meQueryOptions } from './api';

/**
 * Home → Admin: shown to operators only (GET /api/gatehouse/me). It only hides the way in: the
 * server refuses everyone else, and /admin tells them so.
 */
export function AdminButtonSection({ user }: { user: UserRecord }) {
  const me = useQuery(meQueryOptions(user.id));
  if (!me.data?.isOperator) return null;
  return (
    <Link to="/admin" className={buttonClass('secondary')}>
      Admin
    </Link>
  );
}
