import { createFileRoute } from '@tanstack/react-router';
import { loadCatalogue } from '../lib/i18n';
import { GateScreen } from '../features/gate/gate-screen';

/**
 * Where the gate in front of other apps sends a browser to sign in (`?redirect=` the address it
 * was going to): open to visitors and members alike.
 */
export const Route = createFileRoute('/gate')({
  // Open to visitors too: the signed-in screens' texts load for them here.
  beforeLoad: () => loadCatalogue('member'),
  component: GateScreen,
});
