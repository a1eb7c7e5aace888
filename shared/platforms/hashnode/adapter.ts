import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { sendOnce } from '../kit/send-once.ts';
import {
  hashnodeApi, hashnodeErrorCode, provider, refusedByHashnode, unreadable, type HashnodeApi,
} from './hashnode-graphql.ts';
import {
  findPublishedPost, publishedPost, publishPostInput, publishPostMutation, removePostMutation,
} from './hashnode-posts.ts';
import { hashnodeTools } from './hashnode-tools.ts';

const usernameQuery = 'query Me { me { username } }';
const userQuery = `query User($username: String!) {
  user(username: $username) { followersCount posts(first: 20) { edges { node { id url } } } }
}`;
const postCountersQuery = 'query Post($id: ID!) { post(id: $id) { views reactionCount responseCount replyCount } }';

const me = z.object({ me: z.object({ username: z.string() }) });
const user = z.object({
  user: z.object({
    followersCount: z.number().int(),
    posts: z.object({ edges: z.array(z.object({ node: z.object({ id: z.string(), url: z.string() }) })) }),
  }).nullable(),
});
const postCounters = z.object({
  post: z.object({
    views: z.number().int().nullable(),
    reactionCount: z.number().int(),
    responseCount: z.number().int(),
    replyCount: z.number().int(),
  }).nullable(),
});

type Profile = NonNullable<z.infer<typeof user>['user']>;

async function ownProfile(api: HashnodeApi, channel: ChannelCredentials): Promise<Profile> {
  const who = me.safeParse((await api(channel.accessToken, usernameQuery)).data);
  if (!who.success) throw unreadable('the token\'s user', who.error);
  const profile = user.safeParse((await api(channel.accessToken, userQuery, { username: who.data.me.username })).data);
  if (!profile.success || profile.data.user === null) throw unreadable('the user\'s profile', profile.error);
  return profile.data.user;
}

/**
 * Publishes Markdown posts to a Hashnode publication (design-blogging-business.md, section 5)
 * with the user's personal access token: one `publishPost` mutation per post, errors read from
 * GraphQL `errors[]` whatever the HTTP status (hashnode-graphql.ts). Hashnode takes no
 * idempotency key, so a retried part never posts twice this way: the attempt checkpoints a send
 * mark first, and an attempt that finds it looks among the publication's newest posts before
 * sending again (kit/send-once.ts, hashnode-posts.ts). Comments cannot be written through the
 * API: the definition's `replies` is 'none' and later parts are refused at POST /posts.
 */
export function createHashnodeAdapter(options: AdapterOptions, app: Pick<PlatformApp, 'apiUrl'>): PlatformAdapter {
  const api = hashnodeApi(app.apiUrl, options.timeoutMs);

  async function publish(input: PublishInput): Promise<PublishResult> {
    const postInput = publishPostInput(input);
    const token = input.channel.accessToken;
    const sent = {
      publicationId: String(postInput.publicationId),
      title: String(postInput.title),
      contentMarkdown: String(postInput.contentMarkdown),
      checkpoint: input.checkpoint,
    };
    const post = await sendOnce({
      checkpoint: input.checkpoint,
      now: Date.now,
      refused: refusedByHashnode,
      find: (from) => findPublishedPost(api, token, sent, from),
      send: async () => {
        const answer = publishedPost.safeParse((await api(token, publishPostMutation, { input: postInput })).data);
        if (answer.success) return answer.data.publishPost.post;
        // Hashnode made the post if it answered with data: sending again would make a second one.
        const message = 'Hashnode accepted the post but answered without an id SPS could read';
        throw new PlatformError({ kind: 'unconfirmed', provider, message, cause: answer.error });
      },
    });
    return { releaseId: post.id, releaseURL: post.url };
  }

  return {
    provider,
    publish,

    comment() {
      const message = 'Hashnode takes no comments through its API; a post to Hashnode has one part';
      return Promise.reject(new PlatformError({ kind: 'permanent', provider, message }));
    },

    /** The removePost mutation: the post, deleted from its publication; Hashnode's NOT_FOUND means gone. */
    async remove(channel, { releaseId }) {
      try {
        await api(channel.accessToken, removePostMutation, { input: { id: releaseId } });
      } catch (error) {
        if (error instanceof PlatformError && hashnodeErrorCode(error.body) === 'NOT_FOUND') return;
        throw error;
      }
    },

    async recentContent(channel) {
      const profile = await ownProfile(api, channel);
      return profile.posts.edges.map(({ node }) => ({ id: node.id, url: node.url }));
    },

    tools: hashnodeTools(api),

    analytics: {
      async account(channel) {
        const profile = await ownProfile(api, channel);
        return [{ label: 'Followers', value: profile.followersCount }];
      },

      async post(channel, releaseId) {
        const { data } = await api(channel.accessToken, postCountersQuery, { id: releaseId });
        const answer = postCounters.safeParse(data);
        if (!answer.success) throw unreadable('the post\'s counters', answer.error);
        if (answer.data.post === null) {
          throw new PlatformError({ kind: 'permanent', provider, message: `Hashnode has no post ${releaseId}` });
        }
        const { views, reactionCount, responseCount, replyCount } = answer.data.post;
        return [
          // A publication can hide its view count; Hashnode then answers null, which is no reading.
          ...(views === null ? [] : [{ label: 'Views', value: views }]),
          { label: 'Reactions', value: reactionCount },
          { label: 'Responses', value: responseCount },
          { label: 'Replies', value: replyCount },
        ];
      },
    },
  };
}
