import { createFileRoute } from '@tanstack/react-router';
import { InviteTreeScreen } from '../../../features/admin/invite-tree-screen';

export const Route = createFileRoute('/_auth/admin/tree')({
  component: InviteTreeScreen,
});
