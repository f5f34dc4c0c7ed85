/**
 * How many realtime streams (`GET /api/realtime`) one client may hold open on one instance. A
 * stream is a connection and a file descriptor kept for hours, so these are bounds on what a client
 * may hold, not rates. A stream counts against its network (the IPv4 address, or the IPv6 /64) from
 * the moment it opens, and against its member from the subscription request that binds it to them
 * (only then is the member known). Each instance counts its own streams: behind a balancer a
 * client may hold this many on each, and the proxy's `limit_conn` bounds the whole site
 * (deploy/nginx/gatehouse.conf). Off with RATE_LIMITS=off, like every abuse limit (the realtime
 * benchmark holds 10,000 streams of one member from one address). docs/operations.md, Limits.
 */
export const REALTIME_LIMITS = {
  /** Open streams from one client network; the next `GET /api/realtime` answers 429. */
  streamsPerNetwork: 100,
  /** Streams bound to one member; the subscription request binding one more answers 429. */
  streamsPerMember: 20,
};
