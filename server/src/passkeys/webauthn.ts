import { lazyRequire } from '../tools/lazy-require.js';

/**
 * The WebAuthn library, loaded at the first passkey request: it brings an X.509 and ASN.1 stack
 * that would otherwise add a third of a second to every start (docs/decisions/0041). Loaded with
 * require, not import(): the built server runs from V8's code cache, where Node 20 loses the
 * callback import() needs (docs/decisions/0065).
 */
export async function webauthn(): Promise<typeof import('@simplewebauthn/server')> {
  return lazyRequire<typeof import('@simplewebauthn/server')>('@simplewebauthn/server');
}
