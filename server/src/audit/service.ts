/**
 * What audit/ offers other features, its one public module: the security log as the operator
 * console reads it (everyone's, a member's, their last sign-in), and the actor the CLI records.
 */
export { allEvents, CLI_ACTOR, lastSignIn, lastSignIns, memberEvents } from './queries.js';
