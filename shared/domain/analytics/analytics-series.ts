/** One day's stored counters, as the routes read them. */
export interface StoredDay {
  day: string;
  counters: { label: string; value: number }[];
}

/** The contract's analytics shape: one series per counter label. */
export interface AnalyticsSeries {
  label: string;
  data: { total: number; date: string }[];
  percentageChange: number;
}

/**
 * Turns stored days (oldest first) into the contract's series: one per label, in the order labels
 * first appear, each point the day's value, and the change from the first to the last point in
 * percent (0 when the first is 0 or there is one point), rounded to two decimals.
 */
export function analyticsSeries(days: readonly StoredDay[]): AnalyticsSeries[] {
  const byLabel = new Map<string, { total: number; date: string }[]>();
  for (const { day, counters } of days) {
    for (const { label, value } of counters) {
      const points = byLabel.get(label) ?? [];
      points.push({ total: value, date: day });
      byLabel.set(label, points);
    }
  }
  return [...byLabel.entries()].map(([label, data]) => {
    const first = data[0]?.total ?? 0;
    const last = data.at(-1)?.total ?? 0;
    const change = first === 0 || data.length < 2 ? 0 : ((last - first) / first) * 100;
    return { label, data, percentageChange: Math.round(change * 100) / 100 };
  });
}
