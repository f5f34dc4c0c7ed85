import { createFileRoute } from '@tanstack/react-router';
import { AppsScreen } from '../../../features/admin/apps-screen';

export const Route = createFileRoute('/_auth/admin/apps')({
  component: AppsScreen,
});
