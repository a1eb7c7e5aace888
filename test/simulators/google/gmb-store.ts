import { randomInt } from 'node:crypto';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * What the Google Business Profile simulator holds: local posts per location, daily metrics for
 * the Performance API, and the faults a test asks for. gmb-routes.ts reads and changes it.
 */

export interface SimulatedLocalPost {
  /** `accounts/{a}/locations/{l}/localPosts/{id}`. */
  name: string;
  /** `accounts/{a}/locations/{l}`. */
  parent: string;
  languageCode?: string;
  summary?: string;
  topicType: string;
  callToAction?: { actionType: string; url?: string };
  event?: { title: string; schedule: Record<string, unknown> };
  offer?: Record<string, string>;
  alertType?: string;
  /** The photo as Google fetched it from `sourceUrl`. */
  media: { mediaFormat: string; sourceUrl: string; bytes: Buffer; googleUrl: string }[];
  state: 'LIVE' | 'PROCESSING' | 'REJECTED';
  createTime: string;
  searchUrl: string;
}

/** Steps of the API a test can make fail; `lose` does the work, then drops the connection. */
export type GmbStep = 'localPosts.create' | 'localPosts.list' | 'localPosts.delete' | 'performance';
export type InjectedFault = SimulatedAnswer | { lose: true };

export class GmbStore {
  readonly posts: SimulatedLocalPost[] = [];
  /** Daily values by `locations/{l}`, then metric, then `YYYY-MM-DD`. */
  readonly metrics = new Map<string, Map<string, Map<string, number>>>();
  /** Locations Google removed: their calls answer 404 NOT_FOUND. */
  readonly removedLocations = new Set<string>();
  /** Words Google's policy review rejects: a post with one is created in state REJECTED. */
  readonly rejectedWords = new Set<string>();
  /** The operator's project is not approved yet: every call answers RESOURCE_EXHAUSTED with a quota of 0. */
  quotaZero = false;
  /** The operator's project has not enabled the API: every call answers PERMISSION_DENIED SERVICE_DISABLED. */
  serviceDisabled = false;
  /** Google's clock, for createTime; a test may set it apart from SPS's. */
  now: () => number = Date.now;
  readonly #faults = new Map<GmbStep, InjectedFault[]>();

  failNext(step: GmbStep, ...faults: InjectedFault[]): void {
    this.#faults.set(step, [...(this.#faults.get(step) ?? []), ...faults]);
  }

  takeFault(step: GmbStep): InjectedFault | undefined {
    return this.#faults.get(step)?.shift();
  }

  addPost(post: Omit<SimulatedLocalPost, 'name' | 'createTime' | 'searchUrl'>): SimulatedLocalPost {
    const id = String(randomInt(1e9, 1e10));
    const made: SimulatedLocalPost = {
      ...post,
      name: `${post.parent}/localPosts/${id}`,
      createTime: new Date(this.now()).toISOString(),
      searchUrl: `https://local.google.com/place?id=${String(randomInt(1e9, 1e10))}&use=posts&lpsid=${id}`,
    };
    this.posts.push(made);
    return made;
  }

  /** A location's posts, newest first, as localPosts.list answers them. */
  postsOf(parent: string): SimulatedLocalPost[] {
    return this.posts.filter((post) => post.parent === parent).reverse();
  }

  setMetric(location: string, metric: string, day: string, value: number): void {
    const byMetric = this.metrics.get(location) ?? new Map<string, Map<string, number>>();
    const byDay = byMetric.get(metric) ?? new Map<string, number>();
    byDay.set(day, value);
    byMetric.set(metric, byDay);
    this.metrics.set(location, byMetric);
  }

  metricOn(location: string, metric: string, day: string): number {
    return this.metrics.get(location)?.get(metric)?.get(day) ?? 0;
  }
}

/** The post as the API answers it (the photo's bytes stay here). */
export function localPostResource(post: SimulatedLocalPost): Record<string, unknown> {
  const { parent: _parent, media, ...fields } = post;
  return {
    ...fields,
    updateTime: post.createTime,
    ...(media.length === 0 ? {} : {
      media: media.map((item, index) => ({
        name: `${post.name}/media/${String(index)}`, mediaFormat: item.mediaFormat, googleUrl: item.googleUrl,
      })),
    }),
  };
}
