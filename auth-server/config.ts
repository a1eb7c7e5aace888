import { z } from 'zod';
import { ConfigError } from '../shared/config/config.ts';
import { deprecatedTrustProxySchema, trustProxyHopsSchema, withTrustProxyAlias } from '../shared/config/proxy-hops.ts';
import { trailingSlashes } from '../shared/net/trailing-slashes.ts';

/** The spec's environment table for the auth server, plus LOG_LEVEL, TRUST_PROXY_HOPS and SWEEP_EVERY_MS. */
const schema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string'),
  SERVICE_OAUTH_CLIENT_ID: z.string().regex(/^pca_/, 'must be the OAuth app\'s client id (pca_...)'),
  SERVICE_OAUTH_CLIENT_SECRET: z.string().regex(/^pcs_/, 'must be the OAuth app\'s client secret (pcs_...)'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3111),
  SERVER_URL: z.url().optional(),
  SERVICE_FRONTEND_URL: z.url().default('http://localhost:5000'),
  SERVICE_API_URL: z.url().default('http://localhost:5000/api'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The same setting as the api's: proxies in front of this server (client addresses for throttling). */
  TRUST_PROXY_HOPS: trustProxyHopsSchema,
  TRUST_PROXY: deprecatedTrustProxySchema,
  SWEEP_EVERY_MS: z.coerce.number().int().min(100).default(60_000),
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
}

export function loadAuthServerConfig(env: NodeJS.ProcessEnv = process.env): AuthServerConfig {
  const result = schema.safeParse(withTrustProxyAlias(env));
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
  };
}
