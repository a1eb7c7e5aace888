import { z } from 'zod';
import { ConfigError } from '../shared/config/config.ts';
import { deprecatedTrustProxySchema, trustProxyHopsSchema, withTrustProxyAlias } from '../shared/config/proxy-hops.ts';
import { trailingSlashes } from '../shared/net/trailing-slashes.ts';

/**
 * The spec's environment table for the auth server, plus LOG_LEVEL, TRUST_PROXY_HOPS and SWEEP_EVERY_MS.
 * Each setting is described once, here: docs/configuration.md is rendered from it (npm run docs:config).
 */
export const authServerConfigSchema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')
    .describe('The PostgreSQL database holding the device requests and throttle windows (tables made at start-up).')
    .meta({ defaultInWords: 'none, it is required (`npm start`: `postgres://postgres@127.0.0.1:5432/sps_auth`)' }),
  SERVICE_OAUTH_CLIENT_ID: z.string().regex(/^pca_/, 'must be the OAuth app\'s client id (pca_...)')
    .describe('The client id of the auth server\'s OAuth app at SPS (`npm run auth-server:register` prints it).'),
  SERVICE_OAUTH_CLIENT_SECRET: z.string().regex(/^pcs_/, 'must be the OAuth app\'s client secret (pcs_...)')
    .describe('The client secret of that OAuth app.'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3111)
    .describe('The port it listens on; 0 takes any free port, printed in its `auth server listening on` line.'),
  SERVER_URL: z.url().optional()
    .describe('Its public URL; the OAuth app\'s Redirect URL must be `{SERVER_URL}/device/callback`.')
    .meta({ defaultInWords: '`http://localhost:{PORT}`' }),
  SERVICE_FRONTEND_URL: z.url().default('http://localhost:5000')
    .describe('Where SPS\'s dashboard is: the consent page a login goes through.'),
  SERVICE_API_URL: z.url().default('http://localhost:5000/api')
    .describe('Where SPS\'s api is: the authorization codes are exchanged there.'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')
    .describe('The lowest level of the lines it logs (pino, JSON on stdout).'),
  /** The same setting as the api's: proxies in front of this server (client addresses for throttling). */
  TRUST_PROXY_HOPS: trustProxyHopsSchema
    .describe('Proxies in front of the auth server, read as the api reads its own: client addresses for its limits.'),
  TRUST_PROXY: deprecatedTrustProxySchema
    .describe('Deprecated: `true` means one proxy; use TRUST_PROXY_HOPS.'),
  SWEEP_EVERY_MS: z.coerce.number().int().min(100).default(60_000)
    .describe('How often expired device requests and finished throttle windows are deleted.'),
  DEVICE_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(2).max(60).default(5)
    .describe('The `interval` a new login is given: seconds the CLI waits between polls (RFC 8628; 5 is its default). '
      + 'A poll up to a second early still counts, hence at least 2.'),
});

export interface AuthServerConfig {
  databaseUrl: string;
  clientId: string;
  clientSecret: string;
  /** 0: any free port, reported once listening. */
  port: number;
  /**
   * Public URL of this server; the OAuth app's callback is `${serverUrl}/device/callback`.
   * Null when SERVER_URL is unset: then http://localhost:{the port it listens on}.
   */
  serverUrl: string | null;
  frontendUrl: string;
  apiUrl: string;
  logLevel: string;
  proxyHops: number;
  /** How often expired device requests and throttle windows are deleted. */
  sweepEveryMs: number;
  /** Seconds between polls a new login is given. */
  pollIntervalSeconds: number;
}

export function loadAuthServerConfig(env: NodeJS.ProcessEnv = process.env): AuthServerConfig {
  const result = authServerConfigSchema.safeParse(withTrustProxyAlias(env));
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      return `${name}: ${env[name] === undefined ? 'required, and it is not set' : issue.message}`;
    }));
  }
  const c = result.data;
  const trim = (url: string) => url.replace(trailingSlashes, '');
  return {
    databaseUrl: c.DATABASE_URL,
    clientId: c.SERVICE_OAUTH_CLIENT_ID,
    clientSecret: c.SERVICE_OAUTH_CLIENT_SECRET,
    port: c.PORT,
    serverUrl: c.SERVER_URL === undefined ? null : trim(c.SERVER_URL),
    frontendUrl: trim(c.SERVICE_FRONTEND_URL),
    apiUrl: trim(c.SERVICE_API_URL),
    logLevel: c.LOG_LEVEL,
    proxyHops: c.TRUST_PROXY_HOPS,
    sweepEveryMs: c.SWEEP_EVERY_MS,
    pollIntervalSeconds: c.DEVICE_POLL_INTERVAL_SECONDS,
  };
}
