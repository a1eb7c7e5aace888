import type { Database } from '../../db/database.ts';
import type { ChannelTokens } from './channel-tokens.ts';

export interface TokenSweepDeps {
  db: Database;
  tokens: ChannelTokens;
  now: () => Date;
}

export interface TokenSweepSettings {
  /** Channels whose access token expires within this long are refreshed now. */
  aheadMs: number;
  batchSize: number;
}

export interface TokenSweepResult {
  refreshed: string[];
  errors: { channelId: string; error: unknown }[];
}

/**
 * Refreshes the access tokens that expire before the next sweep, so a publish rarely meets an
 * expired token. One channel's failure does not stop the others: a transient one is tried again
 * by the next sweep, a refusal has already flagged the channel (ChannelTokens).
 */
export async function refreshExpiringTokens(
  deps: TokenSweepDeps,
  settings: TokenSweepSettings,
): Promise<TokenSweepResult> {
  const horizon = new Date(deps.now().getTime() + settings.aheadMs);
  const expiring = await deps.db.channels
    .find({ refreshable: true, deletedAt: null, tokenExpiresAt: { $lte: horizon } }, { _id: 1 })
    .sort({ tokenExpiresAt: 1, _id: 1 })
    .limit(settings.batchSize)
    .lean();
  const result: TokenSweepResult = { refreshed: [], errors: [] };
  // One at a time: a platform's rate limit is per app, and the sweep is never in a hurry.
  for (const { _id } of expiring) {
    try {
      await deps.tokens.refreshIfExpiring(_id);
      result.refreshed.push(_id.toString());
    } catch (error) {
      result.errors.push({ channelId: _id.toString(), error });
    }
  }
  return result;
}
