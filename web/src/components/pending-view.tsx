import { Spinner } from './ui/spinner';

export function PendingView() {
  return <Spinner label="Loading..." />;
}
