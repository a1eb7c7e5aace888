import type { RefreshTokens } from '../shared/platforms/kit/token-refresh.ts';
import type { SpsMetrics } from '../shared/metrics/sps-metrics.ts';
import { PlatformError } from '../shared/platforms/kit/platform-error.ts';

/**
 * A platform's refresh call that counts itself into `sps_token_refreshes_total`: refreshed, or
 * the class it failed with (disconnected: the user must connect again; retryable: the platform
 * could not answer), so an operator sees a platform's refreshes start failing.
 */
export function countedRefresher(
  refresh: RefreshTokens | undefined,
  provider: string,
  metrics: SpsMetrics,
): RefreshTokens | undefined {
  if (refresh === undefined) return undefined;
  return async (request) => {
    try {
      const refreshed = await refresh(request);
      metrics.tokenRefreshes.inc({ platform: provider, outcome: 'refreshed' });
      return refreshed;
    } catch (error) {
      const outcome = error instanceof PlatformError ? error.kind : 'failed';
      metrics.tokenRefreshes.inc({ platform: provider, outcome });
      throw error;
    }
  };
}
