import { z } from 'zod';
import type { AnalyticsCounter } from '../kit/platform-adapter.ts';
import type { ThreadsGraph } from './threads-graph.ts';

/**
 * The Threads Insights API read as SPS's counters (shared/platforms/oauth-majors.md, section
 * 6.6). A metric comes either as a series (`values`, per day or lifetime) or as a period total
 * (`total_value`); a metric Threads leaves out is left out here too.
 */

const insights = z.object({
  data: z.array(z.object({
    name: z.string(),
    values: z.array(z.object({ value: z.number() })).optional(),
    total_value: z.object({ value: z.number() }).optional(),
  })),
});

/** The profile's counters, in the order and with the labels clients show. */
const accountMetrics = [
  ['views', 'Profile views'],
  ['likes', 'Likes'],
  ['replies', 'Replies'],
  ['reposts', 'Reposts'],
  ['quotes', 'Quotes'],
  ['followers_count', 'Followers'],
] as const;

const postMetrics = [
  ['views', 'Views'],
  ['likes', 'Likes'],
  ['replies', 'Replies'],
  ['reposts', 'Reposts'],
  ['quotes', 'Quotes'],
  ['shares', 'Shares'],
] as const;

type MetricLabels = readonly (readonly [string, string])[];

function counters(answer: z.infer<typeof insights>, metrics: MetricLabels): AnalyticsCounter[] {
  return metrics.flatMap(([name, label]) => {
    const metric = answer.data.find((candidate) => candidate.name === name);
    if (metric === undefined) return [];
    const value = metric.total_value?.value
      ?? metric.values?.reduce((sum, point) => sum + point.value, 0);
    return value === undefined ? [] : [{ label, value }];
  });
}

/**
 * The last 24 hours of the profile: profile views (a daily series, summed), likes, replies,
 * reposts and quotes over that period, and the followers it has now.
 */
export async function accountCounters(graph: ThreadsGraph, now: Date): Promise<AnalyticsCounter[]> {
  const until = Math.floor(now.getTime() / 1000);
  const query = {
    metric: accountMetrics.map(([name]) => name).join(','),
    since: String(until - 24 * 3600),
    until: String(until),
  };
  return counters(await graph.get('/me/threads_insights', query, insights, 'profile insights'), accountMetrics);
}

/** One post's lifetime counters (a reply's replies count its direct replies only). */
export async function postCounters(graph: ThreadsGraph, mediaId: string): Promise<AnalyticsCounter[]> {
  const query = { metric: postMetrics.map(([name]) => name).join(',') };
  const path = `/${encodeURIComponent(mediaId)}/insights`;
  return counters(await graph.get(path, query, insights, 'post insights'), postMetrics);
}
