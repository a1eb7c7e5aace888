import { z } from 'zod';
import { ConfigError } from '../shared/config/config.ts';

/** Exactly the spec's environment table for the auth server, plus LOG_LEVEL. */
const schema = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string'),
  SERVICE_OAUTH_CLIENT_ID: z.string().regex(/^pca_/, 'must be the OAuth app\'s client id (pca_...)'),
  SERVICE_OAUTH_CLIENT_SECRET: z.string().regex(/^pcs_/, 'must be the OAuth app\'s client secret (pcs_...)'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3111),
  SERVER_URL: z.url().optional(),
  SERVICE_FRONTEND_URL: z.url().default('http://localhost:5000'),
  SERVICE_API_URL: z.url().default('http://localhost:5000/api'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface AuthServerConfig {
  databaseUrl: string;
  clientId: string;
  clientSecret: string;
  port: number;
  /** Public URL of this server; the OAuth app's callback is `${serverUrl}/device/callback`. */
  serverUrl: string;
  frontendUrl: string;
  apiUrl: string;
  logLevel: string;
}

export function loadAuthServerConfig(env: NodeJS.ProcessEnv = process.env): AuthServerConfig {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '(environment)');
      return `${name}: ${env[name] === undefined ? 'required, and it is not set' : issue.message}`;
    }));
  }
  const c = result.data;
  const trim = (url: string) => url.replace(/\/+$/, '');
  return {
    databaseUrl: c.DATABASE_URL,
    clientId: c.SERVICE_OAUTH_CLIENT_ID,
    clientSecret: c.SERVICE_OAUTH_CLIENT_SECRET,
    port: c.PORT,
    serverUrl: trim(c.SERVER_URL ?? `http://localhost:${c.PORT}`),
    frontendUrl: trim(c.SERVICE_FRONTEND_URL),
    apiUrl: trim(c.SERVICE_API_URL),
    logLevel: c.LOG_LEVEL,
  };
}
