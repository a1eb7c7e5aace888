import { z } from 'zod';
import type { AnalyticsCounter } from '../kit/platform-adapter.ts';
import type { GmbApi } from './gmb-api.ts';

/**
 * A location's counters from the Business Profile Performance API
 * (`GET /v1/locations/{l}:fetchMultiDailyMetricsTimeSeries`, design-blogging-business.md 7.6):
 * one call for the daily series of the last 28 days, summed per counter. The series are daily,
 * not running totals, so a reading is the 28 days up to yesterday (UTC): the same window on
 * every reading, as Business Profile's own insights show it. Post-level insights are not read:
 * v4 `localPosts.reportInsights` is deprecated and the Performance API has no per-post metric.
 */

const windowDays = 28;
const dayMs = 86_400_000;

/** Impressions are split by device and surface; SPS reports their sum. */
const impressions = [
  'BUSINESS_IMPRESSIONS_DESKTOP_MAPS',
  'BUSINESS_IMPRESSIONS_DESKTOP_SEARCH',
  'BUSINESS_IMPRESSIONS_MOBILE_MAPS',
  'BUSINESS_IMPRESSIONS_MOBILE_SEARCH',
] as const;

const counters: { label: string; metrics: readonly string[] }[] = [
  { label: 'Profile views (28 days)', metrics: impressions },
  { label: 'Website clicks (28 days)', metrics: ['WEBSITE_CLICKS'] },
  { label: 'Calls (28 days)', metrics: ['CALL_CLICKS'] },
  { label: 'Direction requests (28 days)', metrics: ['BUSINESS_DIRECTION_REQUESTS'] },
];

/** `value` is an int64 as a decimal string, left out on days it is 0. */
const series = z.object({
  multiDailyMetricTimeSeries: z.array(z.object({
    dailyMetricTimeSeries: z.array(z.object({
      dailyMetric: z.string(),
      timeSeries: z.object({
        datedValues: z.array(z.object({ value: z.string().regex(/^\d+$/).optional() })).default([]),
      }).optional(),
    })).default([]),
  })).default([]),
});

function dateParameters(prefix: string, at: Date): [string, string][] {
  return [
    [`${prefix}.year`, String(at.getUTCFullYear())],
    [`${prefix}.month`, String(at.getUTCMonth() + 1)],
    [`${prefix}.day`, String(at.getUTCDate())],
  ];
}

export async function locationCounters(api: GmbApi, location: string, now: number): Promise<AnalyticsCounter[]> {
  const end = new Date(now - dayMs);
  const start = new Date(end.getTime() - (windowDays - 1) * dayMs);
  const query = new URLSearchParams([
    ...counters.flatMap((counter) => counter.metrics.map((metric): [string, string] => ['dailyMetrics', metric])),
    ...dateParameters('dailyRange.startDate', start),
    ...dateParameters('dailyRange.endDate', end),
  ]);
  const answer = await api.get('businessprofileperformance', `/v1/${location}:fetchMultiDailyMetricsTimeSeries`,
    query, series, 'the location\'s performance');
  const totals = new Map<string, number>();
  for (const { dailyMetricTimeSeries } of answer.multiDailyMetricTimeSeries) {
    for (const { dailyMetric, timeSeries } of dailyMetricTimeSeries) {
      const sum = (timeSeries?.datedValues ?? []).reduce((total, day) => total + Number(day.value ?? '0'), 0);
      totals.set(dailyMetric, (totals.get(dailyMetric) ?? 0) + sum);
    }
  }
  return counters.map(({ label, metrics }) => ({
    label, value: metrics.reduce((total, metric) => total + (totals.get(metric) ?? 0), 0),
  }));
}
