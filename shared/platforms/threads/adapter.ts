import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { threadsSettings } from './definition.ts';
import {
  createContainer, defaultContainerPolling, mediaParameters, settleContainer, type ContainerPolling,
} from './media-containers.ts';
import { findPublished } from './published-lookup.ts';
import { isGraphObjectMissing, publishingLimitWaitMs, readGraphRefusal } from '../meta/meta-graph-refusals.ts';
import { provider, threadsGraph, type ThreadsGraph } from './threads-graph.ts';
import { accountCounters, postCounters } from './threads-insights.ts';

const published = z.object({ id: z.string().min(1) });
const deletedAnswer = z.object({ success: z.boolean(), deleted_id: z.string().optional() });
const permalinkAnswer = z.object({ permalink: z.string().min(1) });
const recentThreads = z.object({ data: z.array(z.object({ id: z.string().min(1), permalink: z.string().min(1) })) });

const quota = z.object({ quota_total: z.number(), quota_duration: z.number() });
const publishingLimits = z.object({
  data: z.array(z.object({
    quota_usage: z.number().optional(),
    config: quota.optional(),
    reply_quota_usage: z.number().optional(),
    reply_config: quota.optional(),
  })),
});

/** What a part's checkpoint holds, each saved as soon as Threads hands it over. */
const saved = {
  /** The container that will be published: made, not yet known to be published. */
  container: 'container',
  /** When that container was made (ISO), the oldest a post made from it can be. */
  containerMadeAt: 'containerMadeAt',
  /** The carousel items of that container, comma-separated. */
  carouselItems: 'carouselItems',
  /** The published post's id, once threads_publish answered. */
  media: 'media',
} as const;

/**
 * Publishes to Threads through its two steps (shared/platforms/oauth-majors.md, section 6): a
 * media container (`POST /me/threads`: TEXT, IMAGE or VIDEO pulled by Threads from the file's
 * public URL, or a CAROUSEL of 2-20 items made first with `is_carousel_item`), read until its
 * status is FINISHED, then `POST /me/threads_publish?creation_id=`. The release id is the media
 * id and the URL its `permalink`. Parts after the first are replies (`reply_to_id` = the
 * previous part). The post's settings (reply_control, topic_tag, quote_post_id,
 * link_attachment) go with the first part. `/me` stands for the token's profile, so the
 * adapter needs no user id.
 *
 * Exactly once: Threads has no idempotency key, but a container is published at most once
 * and reports it (status PUBLISHED). Every container id is saved in the part's checkpoint
 * the moment Threads returns it, before threads_publish, and the media id right after
 * threads_publish answers. A retry after a crash or a lost answer reads the checkpoint first:
 * - a media id: the part is published; its permalink is read, nothing is sent;
 * - a container still IN_PROGRESS or FINISHED: that same container is published, no new one;
 * - a container PUBLISHED: threads_publish went through before the crash. The profile's own
 *   recent threads (replies, for a reply to the previous part) are searched for the part's
 *   text, stamped after the container was made; exactly one match is the release, otherwise
 *   the part is `unconfirmed` and set aside, never sent again;
 * - a container EXPIRED (24 hours unpublished): it was never published; a new one is made;
 * - a container in ERROR fails the part with Threads' reason.
 */
export function createThreadsAdapter(
  options: AdapterOptions,
  app: Pick<PlatformApp, 'apiUrl'>,
  polling: ContainerPolling = defaultContainerPolling,
): PlatformAdapter {
  const graphOf = (channel: ChannelCredentials): ThreadsGraph =>
    threadsGraph(app.apiUrl, channel.accessToken, options.timeoutMs);

  async function permalinkOf(graph: ThreadsGraph, mediaId: string): Promise<string> {
    const path = `/${encodeURIComponent(mediaId)}`;
    return (await graph.get(path, { fields: 'permalink' }, permalinkAnswer, 'a permalink')).permalink;
  }

  /** Threads enforces its quota at threads_publish; reading it first spares making a container for nothing. */
  async function ensureQuota(graph: ThreadsGraph, reply: boolean): Promise<void> {
    const fields = 'quota_usage,config,reply_quota_usage,reply_config';
    const answer = await graph.get('/me/threads_publishing_limit', { fields }, publishingLimits, 'publishing limits');
    const limits = answer.data[0];
    const used = reply ? limits?.reply_quota_usage : limits?.quota_usage;
    const total = reply ? limits?.reply_config?.quota_total : limits?.config?.quota_total;
    if (used === undefined || total === undefined || used < total) return;
    const what = reply ? 'replies' : 'posts';
    const message = `the profile published its ${String(total)} ${what} allowed through the API in 24 hours; `
      + 'SPS will try again when the quota frees up';
    throw new PlatformError({ kind: 'retryable', provider, message, retryAfterMs: publishingLimitWaitMs });
  }

  /** Carousel items, reused from the checkpoint while all are still ready, else made anew. */
  async function carouselItems(graph: ThreadsGraph, input: PublishInput): Promise<string[]> {
    const held = input.checkpoint.values[saved.carouselItems]?.split(',').filter((id) => id !== '') ?? [];
    if (held.length === input.media.length) {
      const statuses = await Promise.all(held.map((id) => settleContainer(graph, id, polling)));
      if (statuses.every((status) => status === 'FINISHED')) return held;
    }
    const items: string[] = [];
    for (const media of input.media) {
      items.push(await createContainer(graph, { ...mediaParameters(media), is_carousel_item: 'true' }));
      await input.checkpoint.save({ [saved.carouselItems]: items.join(',') });
    }
    for (const id of items) {
      const status = await settleContainer(graph, id, polling);
      if (status !== 'FINISHED') {
        throw new PlatformError({ kind: 'retryable', provider, message: `carousel item ${id} is ${status}` });
      }
    }
    return items;
  }

  function firstPartSettings(input: PublishInput, text: boolean): Record<string, string> {
    const settings = threadsSettings.safeParse(input.settings);
    if (!settings.success) {
      const issues = settings.error.issues.map((issue) => issue.message).join('; ');
      const message = `the post's Threads settings are invalid: ${issues}`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const { reply_control: replyControl, topic_tag: topicTag, quote_post_id: quotePostId } = settings.data;
    const link = settings.data.link_attachment;
    return {
      ...(replyControl === undefined ? {} : { reply_control: replyControl }),
      ...(topicTag === undefined ? {} : { topic_tag: topicTag }),
      ...(quotePostId === undefined ? {} : { quote_post_id: quotePostId }),
      ...(link === undefined || !text ? {} : { link_attachment: link }),
    };
  }

  async function containerParameters(
    graph: ThreadsGraph,
    input: PublishInput,
    replyTo: string | null,
  ): Promise<Record<string, string>> {
    const [single] = input.media;
    const media = input.media.length > 1
      ? { media_type: 'CAROUSEL', children: (await carouselItems(graph, input)).join(',') }
      : single === undefined ? { media_type: 'TEXT' } : mediaParameters(single);
    return {
      ...media,
      ...(input.content === '' ? {} : { text: input.content }),
      ...(replyTo === null ? firstPartSettings(input, single === undefined) : { reply_to_id: replyTo }),
    };
  }

  async function publishContainer(
    graph: ThreadsGraph,
    input: PublishInput,
    containerId: string,
  ): Promise<PublishResult> {
    const answer = await graph.post('/me/threads_publish', { creation_id: containerId }, published, 'a published post');
    await input.checkpoint.save({ [saved.media]: answer.id });
    return { releaseId: answer.id, releaseURL: await permalinkOf(graph, answer.id) };
  }

  /** Continues from what an earlier attempt saved; null when a new container must be made. */
  async function resume(
    graph: ThreadsGraph,
    input: PublishInput,
    replyTo: string | null,
  ): Promise<PublishResult | null> {
    const values = input.checkpoint.values;
    const mediaId = values[saved.media];
    if (mediaId !== undefined) return { releaseId: mediaId, releaseURL: await permalinkOf(graph, mediaId) };
    const containerId = values[saved.container];
    if (containerId === undefined) return null;
    const status = await settleContainer(graph, containerId, polling);
    if (status === 'FINISHED') return publishContainer(graph, input, containerId);
    if (status === 'EXPIRED') return null;
    const madeAt = new Date(values[saved.containerMadeAt] ?? 0);
    return findPublished(graph, { text: input.content, parentId: replyTo, containerMadeAt: madeAt, containerId });
  }

  async function publishPart(input: PublishInput, replyTo: string | null): Promise<PublishResult> {
    const graph = graphOf(input.channel);
    const resumed = await resume(graph, input, replyTo);
    if (resumed !== null) return resumed;
    await ensureQuota(graph, replyTo !== null);
    const parameters = await containerParameters(graph, input, replyTo);
    const containerMadeAt = new Date();
    const containerId = await createContainer(graph, parameters);
    await input.checkpoint.save({
      [saved.container]: containerId,
      [saved.containerMadeAt]: containerMadeAt.toISOString(),
    });
    const status = await settleContainer(graph, containerId, polling);
    if (status !== 'FINISHED') {
      const message = `Threads answered that the new container ${containerId} is ${status}`;
      throw new PlatformError({ kind: 'retryable', provider, message });
    }
    return publishContainer(graph, input, containerId);
  }

  return {
    provider,
    publish: (input: PublishInput) => publishPart(input, null),
    comment: (input: CommentInput) => publishPart(input, input.parentReleaseId),

    /**
     * `DELETE /{media-id}` for each part, post or reply (threads_delete). Graph answers an item it
     * no longer has, deleted by hand or by an attempt whose answer was lost, with code 100/33: that
     * is removed. A channel connected before SPS asked for threads_delete is refused with code 10.
     */
    async remove(channel, { releaseId }) {
      try {
        const path = `/${encodeURIComponent(releaseId)}`;
        const answer = await graphOf(channel).delete(path, deletedAnswer, 'the deletion');
        if (!answer.success) {
          throw new PlatformError({ kind: 'permanent', provider, message: 'Threads did not delete the post' });
        }
      } catch (error) {
        if (!(error instanceof PlatformError)) throw error;
        if (isGraphObjectMissing(error.body)) return;
        if (readGraphRefusal(error.body)?.code !== 10) throw error;
        const message = 'Threads refused SPS the deletion (threads_delete): connect the account again to grant it';
        const { httpStatus } = error;
        throw new PlatformError({ kind: 'disconnected', provider, message, httpStatus, cause: error });
      }
    },

    async recentContent(channel) {
      const answer = await graphOf(channel).get(
        '/me/threads',
        { fields: 'id,permalink', limit: '25' },
        recentThreads,
        'the profile\'s threads',
      );
      return answer.data.map((item) => ({ id: item.id, url: item.permalink }));
    },

    analytics: {
      account: (channel) => accountCounters(graphOf(channel), new Date()),
      post: (channel, releaseId) => postCounters(graphOf(channel), releaseId),
    },

    tools: {
      async publishingLimit(channel) {
        const fields = 'quota_usage,config,reply_quota_usage,reply_config';
        const answer = await graphOf(channel).get(
          '/me/threads_publishing_limit',
          { fields },
          publishingLimits,
          'publishing limits',
        );
        const limits = answer.data[0];
        return {
          posts: {
            used: limits?.quota_usage ?? null,
            total: limits?.config?.quota_total ?? null,
            windowSeconds: limits?.config?.quota_duration ?? null,
          },
          replies: {
            used: limits?.reply_quota_usage ?? null,
            total: limits?.reply_config?.quota_total ?? null,
            windowSeconds: limits?.reply_config?.quota_duration ?? null,
          },
        };
      },
    },
  };
}
