import { z } from 'zod';
import type {
  AdapterOptions, AnalyticsCounter, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { xSettings } from './definition.ts';
import { provider, xApi, type XApi } from './x-api.ts';
import { isDuplicateContent } from './x-errors.ts';
import { defaultUploadTuning, PartMediaUploader, type UploadTuning } from './x-media-upload.ts';
import { findSentPart, timelineAnswer } from './x-post-lookup.ts';

const numericId = z.string().regex(/^\d+$/);

const userMetrics = z.object({
  followers_count: z.number(),
  following_count: z.number(),
  tweet_count: z.number().optional(),
  post_count: z.number().optional(),
  listed_count: z.number(),
});

const meAnswer = z.object({
  data: z.object({ id: numericId, username: z.string().min(1), public_metrics: userMetrics.optional() }),
});

const createdPost = z.object({ data: z.object({ id: numericId }) });
/** DeletePostsResponse: `deleted`, and X's errors when it did not (an unknown post among them). */
const deletedPost = z.object({
  data: z.object({ deleted: z.boolean() }).optional(),
  errors: z.array(z.object({ type: z.string().optional(), detail: z.string().optional() })).optional(),
});

const postMetrics = z.object({
  impression_count: z.number().optional(),
  like_count: z.number(),
  reply_count: z.number(),
  retweet_count: z.number().optional(),
  repost_count: z.number().optional(),
  quote_count: z.number(),
  bookmark_count: z.number().optional(),
});

const postLookup = z.object({
  data: z.object({ id: numericId, public_metrics: postMetrics }).optional(),
  errors: z.array(z.object({ detail: z.string().optional(), title: z.string().optional() }).loose()).optional(),
});

/** The checkpoint's marker: set once, before the first `POST /2/tweets` of the part. */
const attemptMarker = 'postAttemptAt';

function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `X answered ${what}`);
}

/** The web link to a post; X redirects a renamed account's old username, so the link stays good. */
export function postUrl(username: string, id: string): string {
  return `https://x.com/${encodeURIComponent(username)}/status/${id}`;
}

interface Author {
  id: string;
  username: string;
}

async function me(api: XApi): Promise<Author & { metrics: z.infer<typeof userMetrics> | null }> {
  const answer = meAnswer.safeParse(await api({
    method: 'GET',
    path: '/2/users/me',
    query: { 'user.fields': 'public_metrics' },
  }));
  if (!answer.success) throw unreadable('/2/users/me without a user');
  const { id, username, public_metrics: metrics } = answer.data.data;
  return { id, username, metrics: metrics ?? null };
}

/** Settings of the first part under the names `POST /2/tweets` takes (definition.ts, xSettings). */
function firstPartFields(settings: Record<string, unknown>): Record<string, unknown> {
  const parsed = xSettings.safeParse(settings);
  if (!parsed.success) {
    const message = `the X settings are not valid: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`;
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
  return { ...parsed.data };
}

/**
 * Publishes posts with `POST /2/tweets` for the user who connected the channel (OAuth 2.0 user
 * token; ../shared/platforms/oauth-majors.md, section 1). A thread is a chain of posts, each
 * part after the first a reply (`reply.in_reply_to_tweet_id`) to the previous part; the post's
 * settings (reply_settings, community_id, quote_tweet_id, poll, made_with_ai, paid_partnership)
 * go with the first part. Media are uploaded first (x-media-upload.ts) and attached by id.
 * Alt text is not sent: the facts we gathered document no media metadata call.
 *
 * Exactly once. X has no idempotency key on posts, so a part runs in this order:
 * 1. `GET /2/users/me` for the account's id and username (the release URL needs the username,
 *    so nothing that can fail runs after X accepts the post).
 * 2. If the part's checkpoint holds `postAttemptAt`, an earlier attempt may have posted it with
 *    its answer lost: the account's posts since that moment (`GET /2/users/:id/tweets`) are read,
 *    and one with this part's exact text answering the same parent is taken as the part's post.
 * 3. Media: each id X returns is checkpointed at once and reused by a retry while X keeps it.
 * 4. `postAttemptAt` is saved (once, the first attempt's time), then `POST /2/tweets`.
 * A crash or lost answer after X accepted the post is therefore found in step 2 on the retry.
 * Should the look-up miss it (X's timeline lagging) and X refuse the new post as duplicate
 * content, the part is looked up once more and otherwise set aside as 'unconfirmed': it may be on
 * X, and posting it again cannot be made safe. An answer of X's accept that SPS cannot read is
 * 'unconfirmed' too. Without a marker, a duplicate-content refusal is X's permanent refusal.
 */
/** DELETE of one post; a 404 (the post unknown) answers as X's lookups word it: nothing to delete. */
async function removedOrGone(api: XApi, id: string): Promise<unknown> {
  try {
    return await api({ method: 'DELETE', path: `/2/tweets/${id}` });
  } catch (error) {
    if (error instanceof PlatformError && error.httpStatus === 404) return { data: { deleted: true } };
    throw error;
  }
}

export function createXAdapter(
  options: AdapterOptions,
  app: Pick<PlatformApp, 'apiUrl'>,
  tuning: UploadTuning = defaultUploadTuning,
): PlatformAdapter {
  const apiFor = (channel: ChannelCredentials): XApi => xApi(app.apiUrl, channel.accessToken, options.timeoutMs);

  async function publishPart(input: PublishInput, parentId: string | null): Promise<PublishResult> {
    const fields = parentId === null ? firstPartFields(input.settings) : {};
    const api = apiFor(input.channel);
    const author = await me(api);
    const released = (id: string): PublishResult => ({ releaseId: id, releaseURL: postUrl(author.username, id) });

    const marker = input.checkpoint.values[attemptMarker];
    const attemptAt = marker === undefined ? null : new Date(marker);
    const earlier = attemptAt === null || Number.isNaN(attemptAt.getTime()) ? null : attemptAt;
    const sent = { userId: author.id, text: input.content, parentId };
    if (earlier !== null) {
      const found = await findSentPart(api, { ...sent, attemptAt: earlier });
      if (found !== null) return released(found);
    }

    const mediaIds = await new PartMediaUploader(api, input.checkpoint, tuning).upload(input.media);
    const body = {
      ...(input.content === '' ? {} : { text: input.content }),
      ...(mediaIds.length === 0 ? {} : { media: { media_ids: mediaIds } }),
      ...(parentId === null ? {} : { reply: { in_reply_to_tweet_id: parentId } }),
      ...fields,
    };
    if (earlier === null) await input.checkpoint.save({ [attemptMarker]: new Date().toISOString() });

    let answer: unknown;
    try {
      answer = await api({ method: 'POST', path: '/2/tweets', json: body });
    } catch (error) {
      if (earlier === null || !(error instanceof PlatformError) || error.httpStatus === null) throw error;
      if (!isDuplicateContent(error.httpStatus, error.message)) throw error;
      const found = await findSentPart(api, { ...sent, attemptAt: earlier });
      if (found !== null) return released(found);
      const message = `${error.message} An earlier attempt may have posted this part; SPS could not find it on X`;
      throw new PlatformError({ kind: 'unconfirmed', provider, message, httpStatus: error.httpStatus, cause: error });
    }
    const created = createdPost.safeParse(answer);
    if (!created.success) {
      const message = 'X accepted the post but answered without an id SPS could read';
      throw new PlatformError({ kind: 'unconfirmed', provider, message });
    }
    return released(created.data.data.id);
  }

  return {
    provider,
    publish: (input: PublishInput) => publishPart(input, null),
    comment: (input: CommentInput) => publishPart(input, input.parentReleaseId),

    async recentContent(channel) {
      const api = apiFor(channel);
      const author = await me(api);
      const answer = timelineAnswer.safeParse(await api({
        method: 'GET',
        path: `/2/users/${author.id}/tweets`,
        query: { max_results: '20' },
      }));
      if (!answer.success) throw unreadable('the account\'s posts in a shape');
      return (answer.data.data ?? []).map((post) => ({ id: post.id, url: postUrl(author.username, post.id) }));
    },

    /** DELETE /2/tweets/:id: the user's own post, gone for good; replies to it stay. */
    async remove(channel, { releaseId }) {
      if (!numericId.safeParse(releaseId).success) {
        throw new PlatformError({ kind: 'permanent', provider, message: `${releaseId} is not an X post id` });
      }
      const answer = deletedPost.safeParse(await removedOrGone(apiFor(channel), releaseId));
      if (!answer.success) throw unreadable('the deletion in a shape');
      if (answer.data.data?.deleted === true) return;
      // X answers an unknown (already deleted) post with its resource-not-found error: gone, as wanted.
      const errors = answer.data.errors ?? [];
      if (errors.some((error) => error.type?.endsWith('/resource-not-found') === true)) return;
      const said = errors.map((error) => error.detail).filter((detail) => detail !== undefined).join('; ');
      const message = said === '' ? 'X did not delete the post' : `X did not delete the post: ${said}`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    },

    tools: {},

    analytics: {
      async account(channel) {
        const { metrics } = await me(apiFor(channel));
        if (metrics === null) throw unreadable('/2/users/me without public_metrics');
        const posts = metrics.post_count ?? metrics.tweet_count;
        return [
          { label: 'Followers', value: metrics.followers_count },
          { label: 'Following', value: metrics.following_count },
          ...(posts === undefined ? [] : [{ label: 'Posts', value: posts }]),
          { label: 'Listed', value: metrics.listed_count },
        ];
      },

      async post(channel, releaseId) {
        const answer = postLookup.safeParse(await apiFor(channel)({
          method: 'GET',
          path: `/2/tweets/${encodeURIComponent(releaseId)}`,
          query: { 'tweet.fields': 'public_metrics' },
        }));
        if (!answer.success) throw unreadable('a post in a shape');
        const post = answer.data.data;
        if (post === undefined) {
          // A deleted or hidden post comes back as 200 with errors[] instead of data.
          const problem = answer.data.errors?.[0];
          const message = `X: ${problem?.detail ?? problem?.title ?? `post ${releaseId} was not found`}`;
          throw new PlatformError({ kind: 'permanent', provider, message });
        }
        const metrics = post.public_metrics;
        const counters: AnalyticsCounter[] = [];
        if (metrics.impression_count !== undefined) {
          counters.push({ label: 'Impressions', value: metrics.impression_count });
        }
        counters.push({ label: 'Likes', value: metrics.like_count }, { label: 'Replies', value: metrics.reply_count });
        const reposts = metrics.repost_count ?? metrics.retweet_count;
        if (reposts !== undefined) counters.push({ label: 'Reposts', value: reposts });
        counters.push({ label: 'Quotes', value: metrics.quote_count });
        if (metrics.bookmark_count !== undefined) counters.push({ label: 'Bookmarks', value: metrics.bookmark_count });
        return counters;
      },
    },
  };
}
