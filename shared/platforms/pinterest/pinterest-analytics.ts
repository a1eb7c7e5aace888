import { z } from 'zod';
import type { AnalyticsCounter, AnalyticsReads, ChannelCredentials } from '../kit/platform-adapter.ts';
import type { PinterestApi } from './pinterest-api.ts';

/**
 * Pinterest's counters (design-blogging-business.md 1.6). Both analytics routes take a window of
 * dates (at most 90 days back) and answer `{all: {summary_metrics, lifetime_metrics?, ...}}`.
 * Neither is served in the trial sandbox.
 */

const metrics = z.record(z.string(), z.number());
const analyticsAnswer = z.object({
  all: z.object({ summary_metrics: metrics.optional(), lifetime_metrics: metrics.optional() }).loose(),
});
const account = z.object({ follower_count: z.number().int().optional() });

/** The metrics read, each under the label it is stored with. */
const pinMetrics: readonly [string, string][] = [
  ['IMPRESSION', 'Impressions'],
  ['SAVE', 'Saves'],
  ['PIN_CLICK', 'Pin clicks'],
  ['OUTBOUND_CLICK', 'Outbound clicks'],
];

/** The account's counters cover the last 30 days, a window that keeps its meaning from day to day. */
const accountWindowDays = 30;
/** A pin's counters cover as far back as Pinterest answers: 90 days, one kept for clocks that differ. */
const pinWindowDays = 89;

const dayMs = 24 * 3600_000;
const utcDate = (at: number): string => new Date(at).toISOString().slice(0, 10);

function windowOf(days: number): Record<string, string> {
  const now = Date.now();
  return {
    start_date: utcDate(now - days * dayMs),
    end_date: utcDate(now),
    metric_types: pinMetrics.map(([metric]) => metric).join(','),
  };
}

function countersOf(read: Record<string, number> | undefined, suffix: string): AnalyticsCounter[] {
  if (read === undefined) return [];
  return pinMetrics.flatMap(([metric, label]) => {
    const value = read[metric];
    return value === undefined ? [] : [{ label: `${label}${suffix}`, value }];
  });
}

export function pinterestAnalytics(apiFor: (channel: ChannelCredentials) => PinterestApi): AnalyticsReads {
  return {
    async account(channel) {
      const api = apiFor(channel);
      const profile = await api({ method: 'GET', path: '/v5/user_account' }, account, 'the account');
      const query = windowOf(accountWindowDays);
      const read = await api({ method: 'GET', path: '/v5/user_account/analytics', query }, analyticsAnswer,
        'the account\'s analytics');
      const followers = profile.follower_count;
      const counters = countersOf(read.all.summary_metrics, ', last 30 days');
      return followers === undefined ? counters : [{ label: 'Followers', value: followers }, ...counters];
    },

    async post(channel, releaseId) {
      const api = apiFor(channel);
      const path = `/v5/pins/${encodeURIComponent(releaseId)}/analytics`;
      const read = await api({ method: 'GET', path, query: windowOf(pinWindowDays) }, analyticsAnswer,
        'the pin\'s analytics');
      // Lifetime counters where Pinterest gives them; the window's sums otherwise.
      return countersOf(read.all.lifetime_metrics ?? read.all.summary_metrics, '');
    },
  };
}
