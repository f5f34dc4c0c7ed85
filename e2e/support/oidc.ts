/**
 * The real OpenID provider of the browser journeys: the API tests' one (`oidc-provider` on
 * 127.0.0.1 with its development login page, which takes any login and password), started by the
 * global setup for the `providers` server. A login `someone` has the verified email
 * `someone@example.com`.
 */
export { TestOidcProvider } from '../../server/test/support/oidc';

/** How its button reads: "Continue with Test ID". */
export const PROVIDER_NAME = 'Test ID';
