import type { WayInKind } from './core/ways-in.js';
import { passkeyWayIn } from './passkeys/way-in.js';
import { providerWayIn } from './providers/way-in.js';
import { twoStepWayIn } from './two-step/way-in.js';

/** The ways in the features offer, handed to every context (the server's and the CLI's). */
export const WAY_IN_KINDS: readonly WayInKind[] = [passkeyWayIn, providerWayIn, twoStepWayIn];
