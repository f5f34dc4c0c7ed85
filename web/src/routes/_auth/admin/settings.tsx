import { createFileRoute } from '@tanstack/react-router';
import { SettingsScreen } from '../../../features/admin/settings-screen';

export const Route = createFileRoute('/_auth/admin/settings')({
  component: SettingsScreen,
});
