import { CliError } from './cli-error.ts';
import { defaultApiUrl, readEnvironment, withoutTrailingSlash } from './config.ts';
import { credentialsFile, readStoredCredentials } from './credentials-store.ts';

/** The credential API commands send, and where they send it. */
export interface ActiveCredential {
  kind: 'oauth' | 'api-key';
  /** Sent raw in the Authorization header (spec). */
  token: string;
  /** The backend address, ending in /api. */
  apiUrl: string;
  organizationId: string | null;
}

export const notLoggedInMessage =
  'not logged in: run `sps auth:login` to log in through the browser, or set SERVICE_API_KEY to an API key from the account settings';

/** Stored OAuth credentials win over SERVICE_API_KEY; SERVICE_API_URL wins over the stored address. */
export async function activeCredential(): Promise<ActiveCredential> {
  const env = readEnvironment();
  const stored = await readStoredCredentials();
  if (stored !== null) {
    const apiUrl = env.apiUrlOverride ?? withoutTrailingSlash(stored.apiUrl);
    return { kind: 'oauth', token: stored.accessToken, apiUrl, organizationId: stored.organizationId };
  }
  if (env.apiKey !== null) {
    return { kind: 'api-key', token: env.apiKey, apiUrl: env.apiUrlOverride ?? defaultApiUrl, organizationId: null };
  }
  throw new CliError(notLoggedInMessage);
}

export function describeCredential(credential: ActiveCredential): string {
  return credential.kind === 'oauth' ? `OAuth credentials from ${credentialsFile()}` : 'the API key in SERVICE_API_KEY';
}
