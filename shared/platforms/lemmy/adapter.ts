import { z } from 'zod';
import type {
  AdapterOptions, AnalyticsCounter, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { lemmySettings } from './definition.ts';
import { lemmyApi, provider, sessionOf, unreadable, type LemmySession } from './lemmy-api.ts';
import { lemmyErrorCode } from './lemmy-errors.ts';
import { hostPartMedia, withEmbeds, type HostedMedia } from './lemmy-media.ts';
import { sendOnce } from '../kit/send-once.ts';
import { ownItems } from './lemmy-send-once.ts';
import { communityTools } from './lemmy-tools.ts';

const createdPost = z.object({ post_view: z.object({ post: z.object({ id: z.number().int() }) }) });
const createdComment = z.object({ comment_view: z.object({ comment: z.object({ id: z.number().int() }) }) });
const postCounts = z.object({
  post_view: z.object({
    counts: z.object({ score: z.number(), upvotes: z.number(), downvotes: z.number(), comments: z.number() }),
  }),
});
const commentCounts = z.object({
  comment_view: z.object({
    counts: z.object({ score: z.number(), upvotes: z.number(), downvotes: z.number(), child_count: z.number() }),
  }),
});
const personCounts = z.object({
  person_view: z.object({ counts: z.object({ post_count: z.number(), comment_count: z.number() }) }),
});
const personPosts = z.object({ posts: z.array(z.object({ post: z.object({ id: z.number().int() }) })) });

/** A post's release id is its id; a comment's is `<post id>_<comment id>`, so a reply knows both. */
function parseReleaseId(releaseId: string): { postId: number; commentId: number | null } {
  const match = /^(\d+)(?:_(\d+))?$/.exec(releaseId);
  if (match === null) {
    const message = `${releaseId} is not a Lemmy post or comment id`;
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
  return { postId: Number(match[1]), commentId: match[2] === undefined ? null : Number(match[2]) };
}

const postUrl = (session: LemmySession, id: number): string => `${session.instance}/post/${String(id)}`;
const commentUrl = (session: LemmySession, id: number): string => `${session.instance}/comment/${String(id)}`;

function settingsOf(input: PublishInput): z.output<typeof lemmySettings> {
  const parsed = lemmySettings.safeParse(input.settings);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  throw new PlatformError({ kind: 'permanent', provider, message: `Lemmy settings: ${problems}` });
}

/**
 * The post's fields from the settings and the hosted media. Without a link of its own, the
 * first image becomes the post's `url` (an image post, its alt text from `alt_text` or the
 * image's own) and the rest are Markdown in the body; with a link, the first image is the
 * link's `custom_thumbnail`.
 */
function postFields(input: PublishInput, hosted: readonly HostedMedia[]): Record<string, unknown> {
  const settings = settingsOf(input);
  const [first, ...rest] = hosted;
  const leadImage = first?.media.kind === 'image' ? first : undefined;
  const embedded = leadImage === undefined ? hosted : rest;
  const body = withEmbeds(input.content, embedded);
  const ownLink = settings.url !== undefined;
  const altText = settings.alt_text ?? (ownLink ? undefined : leadImage?.media.alt ?? undefined);
  return {
    name: settings.name,
    community_id: settings.community_id,
    ...(body === '' ? {} : { body }),
    ...(ownLink ? { url: settings.url } : leadImage === undefined ? {} : { url: leadImage.url }),
    ...(ownLink && leadImage !== undefined ? { custom_thumbnail: leadImage.url } : {}),
    ...(altText === undefined || altText === '' ? {} : { alt_text: altText.slice(0, 1500) }),
    ...(settings.nsfw === undefined ? {} : { nsfw: settings.nsfw }),
    ...(settings.language_id === undefined ? {} : { language_id: settings.language_id }),
  };
}

/**
 * Publishes to Lemmy communities on the channel's own instance (open-and-community.md, section
 * 7), with the session its connect opened (a JWT without expiry; a refused one flags the
 * channel, since SPS keeps no password to sign in again). The first part is `POST
 * /api/v3/post` to `community_id` with the title `name` and the text as the Markdown body;
 * each later part is `POST /api/v3/comment` on that post, answering the part before it
 * (`parent_id`), so the thread reads in order. Media go to the instance's pict-rs first
 * (lemmy-media.ts). Exactly once: a marker checkpointed before each create and a look-up among
 * the account's own items on the next attempt (lemmy-send-once.ts). Throttling waits for the
 * instance's bucket to refill (lemmy-api.ts).
 */
export function createLemmyAdapter(options: AdapterOptions): PlatformAdapter {
  const api = lemmyApi(options);
  const host = (input: PublishInput, session: LemmySession) =>
    hostPartMedia(api, session, input.media, input.checkpoint, options.timeoutMs);

  async function publish(input: PublishInput): Promise<PublishResult> {
    const session = sessionOf(input.channel);
    const fields = postFields(input, await host(input, session));
    const sent = {
      communityId: Number(fields.community_id),
      name: String(fields.name),
      body: typeof fields.body === 'string' ? fields.body : undefined,
    };
    const postId = await sendOnce({
      checkpoint: input.checkpoint,
      now: Date.now,
      find: (from) => ownItems(api, session).findPost(sent, from),
      send: async () => {
        const answer = await api.call(session, { method: 'POST', path: '/api/v3/post', json: fields, bucket: 'post' });
        return readId(createdPost, answer, 'post').post_view.post.id;
      },
    });
    return { releaseId: String(postId), releaseURL: postUrl(session, postId) };
  }

  async function comment(input: CommentInput): Promise<PublishResult> {
    const session = sessionOf(input.channel);
    const settings = settingsOf(input);
    const { postId, commentId: parentId } = parseReleaseId(input.parentReleaseId);
    const content = withEmbeds(input.content, await host(input, session));
    const fields = {
      content,
      post_id: postId,
      ...(parentId === null ? {} : { parent_id: parentId }),
      ...(settings.language_id === undefined ? {} : { language_id: settings.language_id }),
    };
    const commentId = await sendOnce({
      checkpoint: input.checkpoint,
      now: Date.now,
      find: (from) => ownItems(api, session).findComment({ postId, parentId, content }, from),
      send: async () => {
        const answer = await api.call(session, {
          method: 'POST', path: '/api/v3/comment', json: fields, bucket: 'comment',
        });
        return readId(createdComment, answer, 'comment').comment_view.comment.id;
      },
    });
    return { releaseId: `${String(postId)}_${String(commentId)}`, releaseURL: commentUrl(session, commentId) };
  }

  async function get(channel: ChannelCredentials, path: string, query: Record<string, string>): Promise<unknown> {
    return api.call(sessionOf(channel), { method: 'GET', path, query });
  }

  return {
    provider,
    publish,
    comment,

    /**
     * POST /api/v3/post/delete or /comment/delete with `deleted: true`: Lemmy marks the creator's
     * item deleted (its community sees "deleted by creator"; the creator could restore it).
     * couldnt_find_post / couldnt_find_comment: gone already.
     */
    async remove(channel, { releaseId }) {
      const { postId, commentId } = parseReleaseId(releaseId);
      const json = commentId === null ? { post_id: postId, deleted: true } : { comment_id: commentId, deleted: true };
      const path = commentId === null ? '/api/v3/post/delete' : '/api/v3/comment/delete';
      try {
        await api.call(sessionOf(channel), { method: 'POST', path, json });
      } catch (error) {
        const code = error instanceof PlatformError ? lemmyErrorCode(error.body) : null;
        if (code === 'couldnt_find_post' || code === 'couldnt_find_comment') return;
        throw error;
      }
    },

    async recentContent(channel) {
      const session = sessionOf(channel);
      const me = await api.me(session);
      const query = { person_id: String(me.id), sort: 'New', limit: '20' };
      const answer = personPosts.safeParse(await get(channel, '/api/v3/user', query));
      if (!answer.success) throw unreadable('the account\'s posts');
      return answer.data.posts.map(({ post }) => ({ id: String(post.id), url: postUrl(session, post.id) }));
    },

    tools: communityTools(api),

    analytics: {
      async account(channel) {
        const me = await api.me(sessionOf(channel));
        const query = { person_id: String(me.id), limit: '1' };
        const answer = personCounts.safeParse(await get(channel, '/api/v3/user', query));
        if (!answer.success) throw unreadable('the account\'s counters');
        const { post_count: posts, comment_count: comments } = answer.data.person_view.counts;
        return [{ label: 'Posts', value: posts }, { label: 'Comments', value: comments }];
      },

      async post(channel, releaseId): Promise<AnalyticsCounter[]> {
        const { postId, commentId } = parseReleaseId(releaseId);
        if (commentId !== null) {
          const answer = commentCounts.safeParse(await get(channel, '/api/v3/comment', { id: String(commentId) }));
          if (!answer.success) throw unreadable('the comment\'s counters');
          const { score, upvotes, downvotes, child_count: replies } = answer.data.comment_view.counts;
          return votes(score, upvotes, downvotes, { label: 'Replies', value: replies });
        }
        const answer = postCounts.safeParse(await get(channel, '/api/v3/post', { id: String(postId) }));
        if (!answer.success) throw unreadable('the post\'s counters');
        const { score, upvotes, downvotes, comments } = answer.data.post_view.counts;
        return votes(score, upvotes, downvotes, { label: 'Comments', value: comments });
      },
    },
  };
}

function votes(score: number, upvotes: number, downvotes: number, replies: AnalyticsCounter): AnalyticsCounter[] {
  return [
    { label: 'Score', value: score },
    { label: 'Upvotes', value: upvotes },
    { label: 'Downvotes', value: downvotes },
    replies,
  ];
}

/**
 * The created item's id. Lemmy made the item if it answered 200, so an answer SPS cannot read
 * is 'unconfirmed' rather than a refusal: sending again would post it twice.
 */
function readId<T>(schema: z.ZodType<T>, answer: unknown, what: string): T {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const message = `Lemmy accepted the ${what} but answered without an id SPS could read`;
  throw new PlatformError({ kind: 'unconfirmed', provider, message });
}
