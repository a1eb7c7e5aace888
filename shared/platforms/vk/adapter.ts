import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult, RemovalTarget,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { vkSettings } from './definition.ts';
import { VkApi } from './vk-api.ts';
import { VkRefusal } from './vk-errors.ts';
import { vkAttachments, type VkUploadTarget } from './vk-media.ts';
import { sendOnce, vkGuid } from './vk-send-once.ts';
import { VkPacer } from './vk-pacer.ts';

const provider = 'vk';

const me = z.array(z.object({ id: z.number().int(), followers_count: z.number().int().optional() })).min(1);
const postCreated = z.object({ post_id: z.number().int() });
const commentCreated = z.object({ comment_id: z.number().int() });

const attachment = z.object({ type: z.string() }).catchall(z.unknown());
const mediaOwner = z.object({ id: z.number().int(), owner_id: z.number().int() });
const wallItem = z.object({
  id: z.number().int(),
  owner_id: z.number().int().optional(),
  from_id: z.number().int().optional(),
  text: z.string().default(''),
  attachments: z.array(attachment).default([]),
  likes: z.object({ count: z.number() }).optional(),
  reposts: z.object({ count: z.number() }).optional(),
  comments: z.object({ count: z.number() }).optional(),
  views: z.object({ count: z.number() }).optional(),
});
const wallItems = z.object({ items: z.array(wallItem) });
// Newer API versions wrap wall.getById's posts in `items`; older ones answer the list itself.
const postsById = z.union([wallItems, z.array(wallItem).transform((items) => ({ items }))]);
const communities = z.object({
  items: z.array(z.object({
    id: z.number().int(),
    name: z.string(),
    screen_name: z.string().optional(),
    photo_200: z.string().optional(),
  })),
});

type WallItem = z.infer<typeof wallItem>;

/** `photo{owner}_{id}` / `video{owner}_{id}` of the media a wall item carries, as sent to VK. */
function references(item: WallItem): string[] {
  return item.attachments.flatMap((entry) => {
    if (entry.type !== 'photo' && entry.type !== 'video') return [];
    const media = mediaOwner.safeParse(entry[entry.type]);
    return media.success ? [`${entry.type}${String(media.data.owner_id)}_${String(media.data.id)}`] : [];
  });
}

const sameItem = (item: WallItem, text: string, attachments: readonly string[]): boolean =>
  item.text === text && references(item).join(',') === attachments.join(',');

/** A release id is `{owner}_{post}` for a post and `{owner}_{post}_{comment}` for a comment. */
function parseReleaseId(releaseId: string): { ownerId: number; postId: number; commentId: number | null } {
  const match = /^(-?\d+)_(\d+)(?:_(\d+))?$/.exec(releaseId);
  if (match === null) {
    throw new PlatformError({ kind: 'permanent', provider, message: `${releaseId} is not a VK post id` });
  }
  const commentId = match[3] === undefined ? null : Number(match[3]);
  return { ownerId: Number(match[1]), postId: Number(match[2]), commentId };
}

export const vkPostUrl = (ownerId: number, postId: number): string =>
  `https://vk.com/wall${String(ownerId)}_${String(postId)}`;

/**
 * Publishes to VK walls through api.vk.com (open-and-community.md, section 5) with the VK ID
 * user token: the first part with wall.post on the user's wall, or on the community
 * `community_id` names (owner id negative, `from_group` deciding who appears as author); later
 * parts as wall.createComment on that post, in order. Photos go through
 * photos.getWallUploadServer → upload (`photo`) → photos.saveWallPhoto, videos through
 * video.save → upload (`video_file`); both attach as `photo{owner}_{id}` / `video{owner}_{id}`.
 * Errors come with HTTP 200 and a code (vk-errors.ts); error 5 asks the engine to refresh.
 *
 * Exactly once (vk-send-once.ts): wall.post and wall.createComment carry a `guid` derived from
 * the part's idempotency key, the same on every attempt, which VK documents as stopping a
 * repeated send of the same post for one hour. Before the call the attempt checkpoints when it
 * sent; when the worker dies, or the answer is lost, after VK accepted and before the release id
 * is written, the retry sends again with the same guid and takes the post VK answers with. A
 * retry after VK's hour, or a refusal saying the guid was used, looks for the part's text and
 * attachments on the wall (wall.get, wall.getComments) and takes what it finds, else the part
 * is 'unconfirmed'. Uploaded photos and videos are checkpointed (vk-media.ts), so a retry
 * attaches them instead of uploading again. The owner's id, needed for the release id, is read
 * before anything is sent: nothing that can fail runs between VK's accept and the engine's write.
 */
export function createVkAdapter(
  options: AdapterOptions,
  app: PlatformApp,
  /** VK's 3 calls a second per token; tests against a simulator with a shorter window pass their own. */
  pacer: VkPacer = new VkPacer(),
): PlatformAdapter {
  const api = new VkApi(app.apiUrl, options.timeoutMs, pacer);

  async function userOf(token: string): Promise<{ id: number; followers: number | null }> {
    const [user] = await api.call(token, 'users.get', { fields: 'followers_count' }, me);
    if (user === undefined) throw new PlatformError({ kind: 'permanent', provider, message: 'VK named no user' });
    return { id: user.id, followers: user.followers_count ?? null };
  }

  /** The part's media, uploaded for the wall it goes to (or taken from the checkpoint). */
  async function attachmentsOf(input: PublishInput, userId: number, ownerId: number): Promise<string[]> {
    const target: VkUploadTarget = {
      token: input.channel.accessToken,
      userId,
      groupId: ownerId < 0 ? -ownerId : null,
    };
    return vkAttachments(api, target, input.media, input.checkpoint);
  }

  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = vkSettings.parse(input.settings);
    const token = input.channel.accessToken;
    const user = await userOf(token);
    const ownerId = settings.community_id === undefined ? user.id : -settings.community_id;
    const attachments = await attachmentsOf(input, user.id, ownerId);
    const onCommunity = ownerId < 0;
    const flag = (value: boolean | undefined): string => (value === true ? '1' : '0');
    const parameters: Record<string, string> = {
      owner_id: String(ownerId),
      message: input.content,
      attachments: attachments.join(','),
      guid: vkGuid(input.idempotencyKey),
      ...(onCommunity ? { from_group: flag(settings.from_group) } : {}),
      ...(onCommunity && settings.from_group === true ? { signed: flag(settings.signed) } : {}),
      ...(settings.close_comments === undefined ? {} : { close_comments: flag(settings.close_comments) }),
      ...(settings.mute_notifications === undefined ? {} : { mute_notifications: flag(settings.mute_notifications) }),
      ...(settings.copyright === undefined ? {} : { copyright: settings.copyright }),
    };
    const postId = await sendOnce({
      checkpoint: input.checkpoint,
      what: 'post',
      now: Date.now,
      send: async () => (await api.call(token, 'wall.post', parameters, postCreated)).post_id,
      find: async () => {
        const wall = await api.call(token, 'wall.get', { owner_id: String(ownerId), count: '100' }, wallItems);
        return wall.items.find((item) => sameItem(item, input.content, attachments))?.id ?? null;
      },
    });
    return { releaseId: `${String(ownerId)}_${String(postId)}`, releaseURL: vkPostUrl(ownerId, postId) };
  }

  async function comment(input: CommentInput): Promise<PublishResult> {
    const settings = vkSettings.parse(input.settings);
    const token = input.channel.accessToken;
    // Every later part comments on the thread's post, in order, whichever part came just before.
    const { ownerId, postId } = parseReleaseId(input.parentReleaseId);
    const user = await userOf(token);
    const attachments = await attachmentsOf(input, user.id, ownerId);
    const asCommunity = ownerId < 0 && settings.from_group === true;
    const authorId = asCommunity ? ownerId : user.id;
    const parameters: Record<string, string> = {
      owner_id: String(ownerId),
      post_id: String(postId),
      message: input.content,
      attachments: attachments.join(','),
      guid: vkGuid(input.idempotencyKey),
      ...(asCommunity ? { from_group: String(-ownerId) } : {}),
    };
    const commentId = await sendOnce({
      checkpoint: input.checkpoint,
      what: 'comment',
      now: Date.now,
      send: async () => (await api.call(token, 'wall.createComment', parameters, commentCreated)).comment_id,
      find: async () => {
        const query = { owner_id: String(ownerId), post_id: String(postId), count: '100', sort: 'desc' };
        const found = await api.call(token, 'wall.getComments', query, wallItems);
        const mine = found.items.filter((item) => item.from_id === authorId);
        return mine.find((item) => sameItem(item, input.content, attachments))?.id ?? null;
      },
    });
    return {
      releaseId: `${String(ownerId)}_${String(postId)}_${String(commentId)}`,
      releaseURL: `${vkPostUrl(ownerId, postId)}?reply=${String(commentId)}`,
    };
  }

  return {
    provider,
    publish,
    comment,

    /**
     * wall.delete of the post, or wall.deleteComment of a comment (scope `wall`); VK's 104 "Not
     * found" means it is gone already.
     */
    async remove(channel: ChannelCredentials, { releaseId }: RemovalTarget) {
      const { ownerId, postId, commentId } = parseReleaseId(releaseId);
      const parameters: Record<string, string> = { owner_id: String(ownerId), post_id: String(postId) };
      if (commentId !== null) parameters.comment_id = String(commentId);
      const method = commentId === null ? 'wall.delete' : 'wall.deleteComment';
      try {
        await api.call(channel.accessToken, method, parameters, z.literal(1));
      } catch (error) {
        if (error instanceof VkRefusal && error.code === 104) return;
        throw error;
      }
    },

    async recentContent(channel: ChannelCredentials) {
      const wall = await api.call(channel.accessToken, 'wall.get', { count: '20' }, wallItems);
      return wall.items.flatMap((item) => {
        if (item.owner_id === undefined) return [];
        return [{ id: `${String(item.owner_id)}_${String(item.id)}`, url: vkPostUrl(item.owner_id, item.id) }];
      });
    },

    tools: {
      async managedCommunities(channel) {
        const query = { filter: 'admin,editor', extended: '1' };
        const found = await api.call(channel.accessToken, 'groups.get', query, communities);
        return found.items.map((group) => ({
          id: group.id,
          name: group.name,
          screenName: group.screen_name ?? null,
          picture: group.photo_200 ?? null,
        }));
      },
    },

    analytics: {
      async account(channel) {
        const user = await userOf(channel.accessToken);
        return user.followers === null ? [] : [{ label: 'Followers', value: user.followers }];
      },

      async post(channel, releaseId) {
        const { ownerId, postId, commentId } = parseReleaseId(releaseId);
        // Comments have no counters VK reports beside their likes; the thread's post carries them.
        if (commentId !== null) return [];
        const query = { posts: `${String(ownerId)}_${String(postId)}` };
        const [post] = (await api.call(channel.accessToken, 'wall.getById', query, postsById)).items;
        if (post === undefined) return [];
        const counters = [
          { label: 'Likes', value: post.likes?.count },
          { label: 'Reposts', value: post.reposts?.count },
          { label: 'Comments', value: post.comments?.count },
          { label: 'Views', value: post.views?.count },
        ];
        return counters.flatMap(({ label, value }) => (value === undefined ? [] : [{ label, value }]));
      },
    },
  };
}
