import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

function errorOf(env: Record<string, string>): Error {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as Error;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('configuration from the environment', () => {
  it('defaults follow decisions.md', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8090);
    expect(c.host).toBe('127.0.0.1');
    expect(c.appUrl).toBe('http://localhost:8090');
    expect(c.appName).toBe('Gatehouse');
    expect(c.invitesPerUser).toBe(5);
    expect(c.rateLimits).toBe(true);
    expect(c.trustProxy).toBe(false);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.smtpUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      APP_URL: 'https://gate.example.com/',
      APP_NAME: 'Door',
      DATA_DIR: '/tmp/x',
      DATABASE_URL: 'postgres://u:p@db:5432/gh',
      REDIS_URL: 'redis://r:6379',
      SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      MAIL_FROM: 'Door <d@example.com>',
      INVITES_PER_USER: '3',
      RATE_LIMITS: 'off',
      TRUST_PROXY: '1',
    });
    expect(c).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      appUrl: 'https://gate.example.com',
      appName: 'Door',
      dataDir: '/tmp/x',
      databaseUrl: 'postgres://u:p@db:5432/gh',
      redisUrl: 'redis://r:6379',
      smtpUrl: 'smtps://user:pass@mail.example.com:465',
      mailFrom: 'Door <d@example.com>',
      invitesPerUser: 3,
      rateLimits: false,
      trustProxy: 1,
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['RATE_LIMITS', 'maybe'],
    ['TRUST_PROXY', 'sometimes'],
    ['TRUST_PROXY', '11'],
    ['TRUST_PROXY', '-1'],
    ['TRUST_PROXY', '1.5'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '10.0.0.1,proxy.example.com'],
    ['TRUST_PROXY', '10.0.0.0/8/8'],
    ['SMTP_URL', 'http://mail.example.com'],
    ['SMTP_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://db/gh'],
    ['REDIS_URL', 'http://r'],
    ['APP_URL', 'ftp://x'],
    ['INVITES_PER_USER', '-1'],
    ['INVITES_PER_USER', '2.5'],
  ])('%s=%s is refused with a message naming the variable', (name, value) => {
    const err = errorOf({ [name]: value });
    expect(err.message).toContain(name);
  });

  it.each(['on', 'true', 'yes', 'ON'])(
    'TRUST_PROXY=%s (every hop) is refused at start, saying what to write instead',
    (value) => {
      const err = errorOf({ TRUST_PROXY: value });
      expect(err.message).toContain(`TRUST_PROXY=${value}`);
      expect(err.message).toContain('TRUST_PROXY=1');
      expect(err.message).toMatch(/addresses/);
    },
  );

  it('TRUST_PROXY takes a hop count or a comma list of proxy addresses/CIDRs', () => {
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'off' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(
      loadConfig({ TRUST_PROXY: '10.0.0.5, 10.0.1.0/24,::1,2001:DB8::/32' }).trustProxy,
    ).toEqual(['10.0.0.5', '10.0.1.0/24', '::1', '2001:db8::/32']);
  });
  it("sign-in providers: OAUTH2_PROVIDERS with each one's client, checked at start", () => {
    expect(loadConfig({}).providers).toEqual([]);
    const c = loadConfig({
      OAUTH2_PROVIDERS: ' GitHub, oidc ',
      OAUTH2_GITHUB_CLIENT_ID: 'gh-id',
      OAUTH2_GITHUB_CLIENT_SECRET: 'gh-secret',
      OAUTH2_OIDC_CLIENT_ID: 'oidc-id',
      OAUTH2_OIDC_CLIENT_SECRET: 'oidc-secret',
      OAUTH2_OIDC_ISSUER: 'https://id.example.org/realms/main',
      OAUTH2_OIDC_NAME: 'Example ID',
      OAUTH2_TIMEOUT_MS: '2500',
    });
    expect(c.providers).toEqual([
      { name: 'github', displayName: 'GitHub', clientId: 'gh-id', clientSecret: 'gh-secret' },
      {
        name: 'oidc',
        displayName: 'Example ID',
        clientId: 'oidc-id',
        clientSecret: 'oidc-secret',
        issuer: 'https://id.example.org/realms/main',
      },
    ]);
    expect(c.providerTimeoutMs).toBe(2500);
    expect(loadConfig({}).providerTimeoutMs).toBe(10_000);

    expect(errorOf({ OAUTH2_PROVIDERS: 'myspace' }).message).toContain(
      'OAUTH2_PROVIDERS names "myspace", which is not one of github, google, oidc',
    );
    const missing = errorOf({ OAUTH2_PROVIDERS: 'google,oidc' }).message;
    expect(missing).toContain('OAUTH2_GOOGLE_CLIENT_ID must be set');
    expect(missing).toContain('OAUTH2_GOOGLE_CLIENT_SECRET must be set');
    expect(missing).toContain('OAUTH2_OIDC_ISSUER must be set');
    const client = { OAUTH2_OIDC_CLIENT_ID: 'a', OAUTH2_OIDC_CLIENT_SECRET: 'b' };
    expect(
      errorOf({ OAUTH2_PROVIDERS: 'oidc', ...client, OAUTH2_OIDC_ISSUER: 'http://id.example.org' })
        .message,
    ).toContain('OAUTH2_OIDC_ISSUER must be https://');
    expect(
      loadConfig({ OAUTH2_PROVIDERS: 'oidc', ...client, OAUTH2_OIDC_ISSUER: 'http://127.0.0.1:9' })
        .providers[0]?.issuer,
    ).toBe('http://127.0.0.1:9');
    expect(errorOf({ OAUTH2_PROVIDERS: 'oidc,oidc', ...client }).message).toContain('twice');
    expect(errorOf({ OAUTH2_TIMEOUT_MS: '0' }).message).toContain('OAUTH2_TIMEOUT_MS');
  });
});
