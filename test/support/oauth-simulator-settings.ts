import { platformEnvPrefix } from '../../shared/platforms/kit/platform-app.ts';

/** A simulator of an OAuth platform: its app registration, and one origin for API, consent and token. */
export interface OAuthPlatformSimulator {
  clientId: string;
  clientSecret: string;
  url: string;
}

/**
 * The settings (`<P>_CLIENT_ID` and the rest, named as SPS reads them) that register SPS's app
 * with the simulator of platform `identifier` and point its API, consent and token URLs at it.
 */
export function oauthSimulatorSettings(identifier: string, simulator: OAuthPlatformSimulator): Record<string, string> {
  const prefix = platformEnvPrefix(identifier);
  return {
    [`${prefix}_CLIENT_ID`]: simulator.clientId,
    [`${prefix}_CLIENT_SECRET`]: simulator.clientSecret,
    [`${prefix}_API_URL`]: simulator.url,
    [`${prefix}_AUTH_URL`]: simulator.url,
    [`${prefix}_TOKEN_URL`]: simulator.url,
  };
}
