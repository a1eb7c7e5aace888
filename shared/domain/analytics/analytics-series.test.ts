import { describe, expect, it } from 'vitest';
import { analyticsSeries } from './analytics-series.ts';

describe('analyticsSeries', () => {
  it('makes one series per label with each day\'s value and the change from the first day to the last', () => {
    const series = analyticsSeries([
      { day: '2026-11-20', counters: [{ label: 'Followers', value: 200 }, { label: 'Posts', value: 0 }] },
      { day: '2026-11-21', counters: [{ label: 'Followers', value: 230 }, { label: 'Posts', value: 3 }] },
      { day: '2026-11-22', counters: [{ label: 'Followers', value: 150 }, { label: 'Posts', value: 4 }] },
    ]);
    expect(series).toEqual([
      {
        label: 'Followers',
        data: [
          { total: 200, date: '2026-11-20' }, { total: 230, date: '2026-11-21' }, { total: 150, date: '2026-11-22' },
        ],
        percentageChange: -25,
      },
      {
        label: 'Posts',
        data: [{ total: 0, date: '2026-11-20' }, { total: 3, date: '2026-11-21' }, { total: 4, date: '2026-11-22' }],
        percentageChange: 0,
      },
    ]);
  });

  it('answers no series for no days, and no change for a single day', () => {
    expect(analyticsSeries([])).toEqual([]);
    const [likes] = analyticsSeries([{ day: '2026-11-22', counters: [{ label: 'Likes', value: 7 }] }]);
    expect(likes).toEqual({ label: 'Likes', data: [{ total: 7, date: '2026-11-22' }], percentageChange: 0 });
  });

  it('rounds the change to two decimals', () => {
    const [views] = analyticsSeries([
      { day: '2026-11-21', counters: [{ label: 'Views', value: 3 }] },
      { day: '2026-11-22', counters: [{ label: 'Views', value: 4 }] },
    ]);
    expect(views?.percentageChange).toBe(33.33);
  });
});
