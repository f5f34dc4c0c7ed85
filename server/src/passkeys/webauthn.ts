/**
 * The WebAuthn library, loaded at the first passkey request: it brings an X.509 and ASN.1 stack
 * that would otherwise add a third of a second to every start (docs/decisions/0041).
 */
export function webauthn(): Promise<typeof import('@simplewebauthn/server')> {
  return import('@simplewebauthn/server');
}
