import { describe, expect, it } from 'vitest';
import { loadAuthServerConfig } from '../../auth-server/config.ts';
import { ConfigError, loadConfig } from './config.ts';

const api = { SECRETS_KEY: 'a'.repeat(64) };
const auth = {
  DATABASE_URL: 'postgres://localhost/sps_auth', SERVICE_OAUTH_CLIENT_ID: 'pca_x', SERVICE_OAUTH_CLIENT_SECRET: 'pcs_x',
};

function problemsOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('TRUST_PROXY_HOPS, one setting read by the api and the auth server', () => {
  it.each([
    [{}, 0],
    [{ TRUST_PROXY_HOPS: '0' }, 0],
    [{ TRUST_PROXY_HOPS: '2' }, 2],
    [{ TRUST_PROXY: 'true' }, 1],
    [{ TRUST_PROXY: 'false' }, 0],
    [{ TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '3' }, 3],
    [{ TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '0' }, 0],
  ])('%o gives %i hops', (env, hops) => {
    expect(loadConfig({ ...api, ...env }).TRUST_PROXY_HOPS).toBe(hops);
    expect(loadAuthServerConfig({ ...auth, ...env }).proxyHops).toBe(hops);
  });

  it.each([['-1', /0 .* or more/], ['1.5', /whole number/], ['two', /TRUST_PROXY_HOPS/], ['11', /more than 10/]])(
    'refuses TRUST_PROXY_HOPS=%s on both servers', (value, message) => {
      expect(problemsOf(() => loadConfig({ ...api, TRUST_PROXY_HOPS: value }))).toMatch(message);
      expect(problemsOf(() => loadAuthServerConfig({ ...auth, TRUST_PROXY_HOPS: value }))).toMatch(message);
    },
  );

  it('refuses a TRUST_PROXY that is not true or false, pointing at TRUST_PROXY_HOPS', () => {
    const pointer = /^TRUST_PROXY: deprecated: use TRUST_PROXY_HOPS/m;
    expect(problemsOf(() => loadConfig({ ...api, TRUST_PROXY: 'yes' }))).toMatch(pointer);
    expect(problemsOf(() => loadAuthServerConfig({ ...auth, TRUST_PROXY: 'yes' }))).toMatch(pointer);
  });
});
