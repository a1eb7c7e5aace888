import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { statusError } from './gmb-answers.ts';
import type { GmbStore } from './gmb-store.ts';

/**
 * The Business Profile Performance API's
 * `GET /v1/locations/{l}:fetchMultiDailyMetricsTimeSeries?dailyMetrics=...&dailyRange.startDate.year=...`:
 * one series per metric asked for, one dated value per day of the range, `value` an int64 string
 * left out on days it is 0. Facts: design-blogging-business.md 7.6.
 */

const dailyMetrics = new Set([
  'BUSINESS_IMPRESSIONS_DESKTOP_MAPS', 'BUSINESS_IMPRESSIONS_DESKTOP_SEARCH', 'BUSINESS_IMPRESSIONS_MOBILE_MAPS',
  'BUSINESS_IMPRESSIONS_MOBILE_SEARCH', 'BUSINESS_CONVERSATIONS', 'BUSINESS_DIRECTION_REQUESTS', 'CALL_CLICKS',
  'WEBSITE_CLICKS', 'MESSAGING_CLICKS', 'BUSINESS_BOOKINGS', 'BUSINESS_FOOD_ORDERS', 'BUSINESS_FOOD_MENU_CLICKS',
]);
/** The API serves about the last 18 months; a longer range is refused. */
const maxRangeDays = 550;
const dayMs = 86_400_000;

const invalid = (message: string): SimulatedAnswer => statusError(400, 'INVALID_ARGUMENT', message);

function dayOf(query: URLSearchParams, prefix: string): number | null {
  const [year, month, day] = ['year', 'month', 'day'].map((part) => Number(query.get(`${prefix}.${part}`) ?? 'NaN'));
  if (year === undefined || month === undefined || day === undefined) return null;
  if (![year, month, day].every(Number.isInteger)) return null;
  const at = Date.UTC(year, month - 1, day);
  const back = new Date(at);
  return back.getUTCMonth() === month - 1 && back.getUTCDate() === day ? at : null;
}

const isoDay = (at: number): string => new Date(at).toISOString().slice(0, 10);

export function performanceSeries(store: GmbStore, location: string, query: URLSearchParams): SimulatedAnswer {
  const metrics = query.getAll('dailyMetrics');
  if (metrics.length === 0) return invalid('At least one daily metric is required.');
  const unknown = metrics.find((metric) => !dailyMetrics.has(metric));
  if (unknown !== undefined) return invalid(`Invalid value at 'daily_metrics' (${unknown}).`);
  const start = dayOf(query, 'dailyRange.startDate');
  const end = dayOf(query, 'dailyRange.endDate');
  if (start === null || end === null) return invalid('A valid daily_range with start_date and end_date is required.');
  if (end < start || (end - start) / dayMs > maxRangeDays) return invalid('The daily_range is invalid.');
  const days = Array.from({ length: (end - start) / dayMs + 1 }, (_, index) => start + index * dayMs);
  const dailyMetricTimeSeries = metrics.map((metric) => ({
    dailyMetric: metric,
    timeSeries: {
      datedValues: days.map((at) => {
        const value = store.metricOn(location, metric, isoDay(at));
        const date = new Date(at);
        const dated = { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
        return value === 0 ? { date: dated } : { date: dated, value: String(value) };
      }),
    },
  }));
  return { status: 200, body: { multiDailyMetricTimeSeries: [{ dailyMetricTimeSeries }] } };
}
