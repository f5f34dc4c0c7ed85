import { t } from '@lingui/core/macro';
import { Spinner } from './ui/spinner';

export function PendingView() {
  return <Spinner label={t`Loading...`} />;
}
