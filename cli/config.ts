import { terminal } from './terminal.ts';

/** The client's environment (spec, "Client environment variables"). */
export interface ClientEnvironment {
  apiKey: string | null;
  /** SERVICE_API_URL when set, without a trailing slash. */
  apiUrlOverride: string | null;
  authServer: string;
}

export const defaultApiUrl = 'http://localhost:5000/api';
export const defaultAuthServer = 'http://localhost:3111';

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

export function withoutTrailingSlash(url: string): string {
  return url.replace(/(?<!\/)\/+$/, '');
}

export function readEnvironment(env: NodeJS.ProcessEnv = terminal().env): ClientEnvironment {
  const apiUrl = nonEmpty(env.SERVICE_API_URL);
  return {
    apiKey: nonEmpty(env.SERVICE_API_KEY),
    apiUrlOverride: apiUrl === null ? null : withoutTrailingSlash(apiUrl),
    authServer: withoutTrailingSlash(nonEmpty(env.SERVICE_AUTH_SERVER) ?? defaultAuthServer),
  };
}
