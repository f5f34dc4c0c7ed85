import { createFileRoute } from '@tanstack/react-router';
import { CronsScreen } from '../../../features/admin/crons-screen';

export const Route = createFileRoute('/_auth/admin/crons')({
  component: CronsScreen,
});
