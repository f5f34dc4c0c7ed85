import { createFileRoute } from '@tanstack/react-router';
import { BackupsScreen } from '../../../features/admin/backups-screen';

export const Route = createFileRoute('/_auth/admin/backups')({
  component: BackupsScreen,
});
