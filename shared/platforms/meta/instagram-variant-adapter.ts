import { z } from 'zod';
import type {
  AdapterOptions, AnalyticsCounter, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { instagramSettings } from './instagram-post-rules.ts';
import {
  defaultContainerTiming, parseGraphTime, publishByContainers, type ContainerTiming,
} from './instagram-containers.ts';
import { InstagramGraph } from './instagram-graph.ts';

/** The professional account a channel's token publishes as. */
export interface InstagramAccount {
  id: string;
  username: string;
}

/**
 * What differs between Instagram through Facebook Login and Instagram Login: the host and how the
 * token names its account.
 */
export interface InstagramVariant {
  provider: string;
  apiUrl: string;
  /** Reads the account behind the channel's token. */
  accountOf(graph: InstagramGraph): Promise<InstagramAccount>;
  /** How often containers are polled; tests make it short. */
  timing?: ContainerTiming;
}

const permalinkAnswer = z.object({ id: z.string(), permalink: z.string().optional() });
const commentList = z.object({
  data: z.array(z.object({
    id: z.string(),
    text: z.string().optional(),
    timestamp: z.string().optional(),
    username: z.string().optional(),
    from: z.object({ id: z.string().optional(), username: z.string().optional() }).optional(),
  })),
});
const mediaList = z.object({ data: z.array(z.object({ id: z.string(), permalink: z.string().optional() })) });
const accountCounts = z.object({
  followers_count: z.number().optional(),
  follows_count: z.number().optional(),
  media_count: z.number().optional(),
});
const mediaCounts = z.object({ like_count: z.number().optional(), comments_count: z.number().optional() });
/** Insights answer either `values: [{value}]` (lifetime metrics) or `total_value: {value}`. */
const insightsAnswer = z.object({
  data: z.array(z.object({
    name: z.string(),
    values: z.array(z.object({ value: z.number() })).optional(),
    total_value: z.object({ value: z.number() }).optional(),
  })),
});
const publishingLimitAnswer = z.object({
  data: z.array(z.object({
    quota_usage: z.number(),
    config: z.object({ quota_total: z.number(), quota_duration: z.number() }).optional(),
  })),
});

/** Media insights SPS reads, with the label clients show; `impressions` is gone since v22, `views` replaced it. */
const mediaMetrics: readonly [string, string][] = [
  ['views', 'Views'], ['reach', 'Reach'], ['saved', 'Saved'], ['shares', 'Shares'],
];

/** Code 10 on insights: the media has too few viewers for Meta to report them. */
const notEnoughViewers = 10;

/** A comment sent before a crash is found by its text among the media's comments, written after this. */
const commentSlackMs = 5 * 60_000;

/**
 * Publishing to an Instagram professional account, shared by both ways of connecting one
 * (instagram/adapter.ts through Facebook Login, instagram-standalone/adapter.ts through Instagram
 * Login). The first part becomes a post through containers (instagram-containers.ts: image, Reel,
 * story or carousel, exactly once by checkpointed container ids), later parts text comments
 * on it (`POST /{media-id}/comments`).
 *
 * Exactly once for comments, which have no container: the time of the attempt is checkpointed
 * before the comment is sent; a later attempt that finds it looks for a comment of the account's
 * with the same text on the media, written since, and takes it instead of commenting again.
 */
export function createInstagramVariantAdapter(options: AdapterOptions, variant: InstagramVariant): PlatformAdapter {
  const { provider } = variant;
  const timing = variant.timing ?? defaultContainerTiming;
  const graphOf = (channel: ChannelCredentials) =>
    new InstagramGraph({ provider, apiUrl: variant.apiUrl, timeoutMs: options.timeoutMs }, channel.accessToken);

  async function permalinkOf(graph: InstagramGraph, mediaId: string): Promise<string> {
    const answer = permalinkAnswer.safeParse(await graph.get(`/${mediaId}`, { fields: 'id,permalink' }));
    if (!answer.success || answer.data.permalink === undefined) throw graph.unreadable('a media without a permalink');
    return answer.data.permalink;
  }

  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = instagramSettings.safeParse(input.settings);
    if (!settings.success) {
      const issues = settings.error.issues.map((issue) => issue.message).join('; ');
      const message = `the Instagram settings are not valid: ${issues}`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const graph = graphOf(input.channel);
    const account = await variant.accountOf(graph);
    const mediaId = await publishByContainers(graph, {
      accountId: account.id,
      caption: input.content,
      media: input.media,
      settings: settings.data,
      checkpoint: input.checkpoint,
    }, timing);
    return { releaseId: mediaId, releaseURL: await permalinkOf(graph, mediaId) };
  }

  /** The account's comment with this text on the media, made since `since`, if there is one. */
  async function earlierComment(graph: InstagramGraph, input: CommentInput, account: InstagramAccount, since: number) {
    const query = { fields: 'id,text,timestamp,username,from{id,username}', limit: '50' };
    const listed = commentList.safeParse(await graph.get(`/${input.parentReleaseId}/comments`, query));
    if (!listed.success) throw graph.unreadable('comments', listed.error);
    return listed.data.data.find((comment) => {
      const byAccount = comment.from?.id === account.id || comment.username === account.username;
      return byAccount && comment.text === input.content && (parseGraphTime(comment.timestamp) ?? 0) >= since;
    });
  }

  async function comment(input: CommentInput): Promise<PublishResult> {
    if (input.media.length > 0) {
      throw new PlatformError({ kind: 'permanent', provider, message: 'Instagram comments are text only' });
    }
    const graph = graphOf(input.channel);
    const account = await variant.accountOf(graph);
    const parentUrl = await permalinkOf(graph, input.parentReleaseId);
    const sentAt = parseGraphTime(input.checkpoint.values.commentSentAt);
    if (sentAt !== null) {
      const found = await earlierComment(graph, input, account, sentAt - commentSlackMs);
      if (found !== undefined) return { releaseId: found.id, releaseURL: parentUrl };
    }
    await input.checkpoint.save({ commentSentAt: new Date().toISOString() });
    const made = z.object({ id: z.string().min(1) })
      .safeParse(await graph.post(`/${input.parentReleaseId}/comments`, { message: input.content }));
    if (!made.success) throw graph.unreadable('a comment', made.error);
    // Comments have no address of their own on instagram.com; the post's is where they are read.
    return { releaseId: made.data.id, releaseURL: parentUrl };
  }

  /** Insights the media has; none (too few viewers, code 10) is not a failure. */
  async function mediaInsights(graph: InstagramGraph, mediaId: string): Promise<AnalyticsCounter[]> {
    const metric = mediaMetrics.map(([name]) => name).join(',');
    const raw = await graph.getUnlessRefused(`/${mediaId}/insights`, { metric }, notEnoughViewers);
    if (raw === null) return [];
    const insights = insightsAnswer.safeParse(raw);
    if (!insights.success) throw graph.unreadable('insights', insights.error);
    const counters: AnalyticsCounter[] = [];
    for (const [name, label] of mediaMetrics) {
      const metric = insights.data.data.find((entry) => entry.name === name);
      const value = metric?.total_value?.value ?? metric?.values?.[0]?.value;
      if (value !== undefined) counters.push({ label, value });
    }
    return counters;
  }

  return {
    provider,
    publish,
    comment,

    async recentContent(channel) {
      const graph = graphOf(channel);
      const account = await variant.accountOf(graph);
      const query = { fields: 'id,permalink', limit: '25' };
      const listed = mediaList.safeParse(await graph.get(`/${account.id}/media`, query));
      if (!listed.success) throw graph.unreadable('the account’s media', listed.error);
      const profile = `https://www.instagram.com/${account.username}/`;
      return listed.data.data.map((item) => ({ id: item.id, url: item.permalink ?? profile }));
    },

    tools: {
      async publishingLimit(channel) {
        const graph = graphOf(channel);
        const account = await variant.accountOf(graph);
        const query = { fields: 'quota_usage,config' };
        const answer = await graph.get(`/${account.id}/content_publishing_limit`, query);
        const limit = publishingLimitAnswer.safeParse(answer);
        const [current] = limit.success ? limit.data.data : [];
        if (current === undefined) throw graph.unreadable('a publishing limit');
        return {
          used: current.quota_usage,
          quota: current.config?.quota_total ?? null,
          windowSeconds: current.config?.quota_duration ?? null,
        };
      },
    },

    analytics: {
      async account(channel) {
        const graph = graphOf(channel);
        const account = await variant.accountOf(graph);
        const fields = { fields: 'followers_count,follows_count,media_count' };
        const counts = accountCounts.safeParse(await graph.get(`/${account.id}`, fields));
        if (!counts.success) throw graph.unreadable('account counters', counts.error);
        const found: [string, number | undefined][] = [
          ['Followers', counts.data.followers_count],
          ['Following', counts.data.follows_count],
          ['Posts', counts.data.media_count],
        ];
        return found.flatMap(([label, value]) => (value === undefined ? [] : [{ label, value }]));
      },

      async post(channel, releaseId) {
        const graph = graphOf(channel);
        const counts = mediaCounts.safeParse(await graph.get(`/${releaseId}`, { fields: 'like_count,comments_count' }));
        if (!counts.success) throw graph.unreadable('media counters', counts.error);
        const found: [string, number | undefined][] = [
          ['Likes', counts.data.like_count],
          ['Comments', counts.data.comments_count],
        ];
        const raw = found.flatMap(([label, value]) => (value === undefined ? [] : [{ label, value }]));
        return [...raw, ...await mediaInsights(graph, releaseId)];
      },
    },
  };
}
