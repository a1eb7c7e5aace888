import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { graphTime } from '../facebook/meta-graph-simulation.ts';
import { invalidParameter } from './threads-graph-answers.ts';

/** Threads' insights as the simulator keeps and answers them (the threads_manage_insights edges). */
export interface UserInsights {
  /** Profile views per day, oldest first. */
  views: number[];
  likes: number;
  replies: number;
  reposts: number;
  quotes: number;
  clicks: number;
  followersCount: number;
}

export const mediaMetrics = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'] as const;
export type MediaMetric = (typeof mediaMetrics)[number];
/** What each metric counts, as the insights answer describes it beside its title. */
const metricDescriptions: Readonly<Record<string, string>> = {
  views: 'The number of times the content was viewed.',
  likes: 'The number of likes.',
  replies: 'The number of replies.',
  reposts: 'The number of reposts.',
  quotes: 'The number of quotes.',
  shares: 'The number of shares.',
  clicks: 'The number of clicks on links.',
  followers_count: 'The number of followers.',
  follower_demographics: 'The demographic breakdown of the followers.',
};
const userMetrics = [
  'views', 'likes', 'replies', 'reposts', 'quotes', 'clicks', 'followers_count', 'follower_demographics',
] as const;

function metricsOf(parameters: URLSearchParams, allowed: readonly string[]): string[] | SimulatedAnswer {
  const metrics = (parameters.get('metric') ?? '').split(',').filter((metric) => metric !== '');
  const unknown = metrics.findIndex((metric) => !allowed.includes(metric));
  if (metrics.length === 0 || unknown !== -1) {
    const index = String(Math.max(unknown, 0));
    return invalidParameter(`metric[${index}] must be one of the following values: ${allowed.join(', ')}`);
  }
  return metrics;
}

/** The counters tests set, answered as Threads' insights edges answer them. */
export class ThreadsInsights {
  readonly #media = new Map<string, Partial<Record<MediaMetric, number>>>();
  readonly #users = new Map<string, UserInsights>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  setMedia(mediaId: string, counters: Partial<Record<MediaMetric, number>>): void {
    this.#media.set(mediaId, counters);
  }

  setUser(user: string, insights: UserInsights): void {
    this.#users.set(user, insights);
  }

  /** A thread's insights; `directReplies` counts its replies when no replies counter was set. */
  mediaAnswer(parameters: URLSearchParams, id: string, directReplies: number): SimulatedAnswer {
    const metrics = metricsOf(parameters, mediaMetrics);
    if (!Array.isArray(metrics)) return metrics;
    const counters = this.#media.get(id) ?? {};
    const data = metrics.map((name) => ({
      name,
      period: 'lifetime',
      values: [{ value: name === 'replies' ? counters.replies ?? directReplies : counters[name as MediaMetric] ?? 0 }],
      title: name.charAt(0).toUpperCase() + name.slice(1),
      description: metricDescriptions[name] ?? name,
      id: `${id}/insights/${name}/lifetime`,
    }));
    return { status: 200, body: { data } };
  }

  /** A user's insights: profile views per day, the other metrics as totals. */
  userAnswer(parameters: URLSearchParams, user: string): SimulatedAnswer {
    const metrics = metricsOf(parameters, userMetrics);
    if (!Array.isArray(metrics)) return metrics;
    const since = Number(parameters.get('since') ?? '0');
    if (since !== 0 && since < 1712991600) {
      return invalidParameter('since cannot be before 1712991600 (April 13, 2024)');
    }
    const insights = this.#users.get(user)
      ?? { views: [0], likes: 0, replies: 0, reposts: 0, quotes: 0, clicks: 0, followersCount: 0 };
    const totals: Record<string, number> = {
      likes: insights.likes,
      replies: insights.replies,
      reposts: insights.reposts,
      quotes: insights.quotes,
      clicks: insights.clicks,
      followers_count: insights.followersCount,
    };
    const day = 24 * 3600 * 1000;
    const data = metrics.map((name) => {
      const id = `${user}/insights/${name}/day`;
      if (name === 'views') {
        const values = insights.views.map((value, index) => ({
          value,
          end_time: graphTime(this.#now() - (insights.views.length - 1 - index) * day),
        }));
        return { name, period: 'day', values, title: 'views', description: metricDescriptions[name] ?? name, id };
      }
      const description = metricDescriptions[name] ?? name;
      return { name, period: 'day', title: name, description, total_value: { value: totals[name] ?? 0 }, id };
    });
    return { status: 200, body: { data } };
  }
}
