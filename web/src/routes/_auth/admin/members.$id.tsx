import { createFileRoute } from '@tanstack/react-router';
import { MemberScreen } from '../../../features/admin/member-screen';

export const Route = createFileRoute('/_auth/admin/members/$id')({
  component: MemberRoute,
});

function MemberRoute() {
  const { id } = Route.useParams();
  // A new member's page starts afresh (its notices and questions belong to the one before).
  return <MemberScreen key={id} id={id} />;
}
