import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishMedia,
  PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';
import { isGraphObjectMissing } from '../meta/meta-graph-refusals.ts';
import { facebookSettings } from './definition.ts';
import { pageAnalytics } from './page-analytics.ts';
import { createPageGraph, type PageGraph } from './page-graph.ts';
import { findPageComment, findPagePost, findPageVideo, publishOnce } from './publish-once.ts';

const provider = 'facebook';

const created = z.object({ id: z.string().min(1) });
/** A published photo answers its own id and the id of the post that shows it. */
const publishedPhoto = z.object({ id: z.string().min(1), post_id: z.string().min(1) });
const recentPosts = z.object({ data: z.array(z.object({ id: z.string().min(1) })) });
/** Graph's answer to a DELETE of a node: `{success: true}`. */
const deleted = z.object({ success: z.boolean() });

/** Facebook resolves any object id under www.facebook.com to the post, photo, video or comment. */
export const facebookUrl = (id: string): string => `https://www.facebook.com/${id}`;

const release = (id: string): PublishResult => ({ releaseId: id, releaseURL: facebookUrl(id) });

/**
 * Publishes to a Facebook Page with the Page token the channel holds (Graph API, oauth-majors.md
 * section 3). The first part is a feed post: text and an optional link on `/{page-id}/feed`;
 * one photo uploaded (multipart `source`) and published on `/{page-id}/photos`; several photos
 * uploaded unpublished, then attached to a `/feed` post (`attached_media`, a JSON list); a video
 * uploaded to `/{page-id}/videos` with the text as its description. Release ids are Graph's: the
 * post id `{page-id}_{post-id}`, or the video id for a video; the URL is
 * `https://www.facebook.com/<id>`.
 * Later parts are comments by the Page on the first (`/{object-id}/comments`), with at most one
 * photo uploaded unpublished and attached by `attachment_id`.
 *
 * Exactly once: each unpublished photo's id is saved in the part's checkpoint as soon as Graph
 * answers it, and a retry attaches it instead of uploading again (an unpublished photo is
 * invisible, so a lost upload answer leaves nothing on the Page). The call that publishes has no
 * idempotency key on Graph, so publish-once.ts marks the part before it, and a retry that finds
 * the mark looks on the Page (recent posts, videos, or the post's comments) for the item with
 * this exact text before publishing again; a duplicate refusal on such a repeat makes the part
 * `unconfirmed` rather than failed.
 */
export function createFacebookAdapter(options: AdapterOptions, app: PlatformApp): PlatformAdapter {
  const graph: PageGraph = createPageGraph(app.apiUrl, options.timeoutMs);

  /** With a Page token, `me` is the Page. */
  async function pageIdOf(channel: ChannelCredentials): Promise<string> {
    return (await graph.get('/me', { fields: 'id' }, channel.accessToken, created, 'the Page')).id;
  }

  /** An unpublished photo of the Page, uploaded once per part and media: its id is kept in the checkpoint. */
  async function unpublishedPhoto(
    input: PublishInput,
    pageId: string,
    media: PublishMedia,
    key: string,
  ): Promise<string> {
    const kept = input.checkpoint.values[key];
    if (kept !== undefined) return kept;
    const fields: Record<string, string> = { published: 'false', ...altOf(media) };
    const { id } = await graph.postFile({
      path: `/${pageId}/photos`, token: input.channel.accessToken, fields, fileField: 'source', file: media,
    }, created, 'a photo');
    await input.checkpoint.save({ [key]: id });
    return id;
  }

  function feedPost(input: PublishInput, pageId: string, form: Record<string, string>): Promise<string> {
    const token = input.channel.accessToken;
    return publishOnce({
      checkpoint: input.checkpoint,
      find: (sinceSeconds) => findPagePost({ graph, token, pageId, text: input.content, sinceSeconds }),
      send: async (repeat) => {
        const post = await graph.postForm({ path: `/${pageId}/feed`, token, repeat, form }, created, 'a post');
        return post.id;
      },
    });
  }

  async function publishPost(input: PublishInput): Promise<PublishResult> {
    const settings = facebookSettings.parse(input.settings);
    const type = settings.type ?? 'post';
    if (type !== 'post') {
      const kind = type === 'reel' ? 'Reels' : 'stories';
      const message = `SPS does not publish Facebook ${kind} yet; publish it as a feed post`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const token = input.channel.accessToken;
    const pageId = await pageIdOf(input.channel);
    const videos = input.media.filter((media) => media.kind === 'video');
    const [video] = videos;
    if (video !== undefined) {
      if (input.media.length > 1) throw permanent('a Facebook post takes images or a single video');
      return release(await publishOnce({
        checkpoint: input.checkpoint,
        find: (sinceSeconds) => findPageVideo({ graph, token, pageId, text: input.content, sinceSeconds }),
        send: async (repeat) => (await graph.postFile({
          path: `/${pageId}/videos`, host: 'video', token, repeat,
          fields: { description: input.content }, fileField: 'source', file: video,
        }, created, 'a video')).id,
      }));
    }
    const [photo] = input.media;
    if (input.media.length === 1 && photo !== undefined) {
      if (settings.link !== undefined) throw permanent('a Facebook post with a link takes no photos');
      return release(await publishOnce({
        checkpoint: input.checkpoint,
        find: (sinceSeconds) => findPagePost({ graph, token, pageId, text: input.content, sinceSeconds }),
        send: async (repeat) => (await graph.postFile({
          path: `/${pageId}/photos`, token, repeat,
          fields: { message: input.content, ...altOf(photo) }, fileField: 'source', file: photo,
        }, publishedPhoto, 'a photo')).post_id,
      }));
    }
    const form: Record<string, string> = input.content === '' ? {} : { message: input.content };
    if (settings.link !== undefined) {
      if (input.media.length > 0) throw permanent('a Facebook post with a link takes no photos');
      form.link = settings.link;
    }
    const attached: { media_fbid: string }[] = [];
    for (const [index, media] of input.media.entries()) {
      attached.push({ media_fbid: await unpublishedPhoto(input, pageId, media, `photo${String(index)}`) });
    }
    // One `attached_media` field holding the JSON list, as Graph's description names the param and
    // Meta's business SDKs send a list param; `attached_media[0]` is no param of /feed.
    if (attached.length > 0) form.attached_media = JSON.stringify(attached);
    return release(await feedPost(input, pageId, form));
  }

  async function publishComment(input: CommentInput): Promise<PublishResult> {
    const token = input.channel.accessToken;
    const pageId = await pageIdOf(input.channel);
    if (input.media.length > 1 || input.media.some((media) => media.kind === 'video')) {
      throw permanent('a Facebook comment takes at most one image');
    }
    const form: Record<string, string> = input.content === '' ? {} : { message: input.content };
    const [photo] = input.media;
    if (photo !== undefined) form.attachment_id = await unpublishedPhoto(input, pageId, photo, 'photo0');
    const parentId = input.parentReleaseId;
    return release(await publishOnce({
      checkpoint: input.checkpoint,
      find: (sinceSeconds) => findPageComment({ graph, token, pageId, parentId, text: input.content, sinceSeconds }),
      send: async (repeat) => (await graph.postForm({
        path: `/${encodeURIComponent(parentId)}/comments`, token, repeat, form,
      }, created, 'a comment')).id,
    }));
  }

  return {
    provider,
    publish: publishPost,
    comment: publishComment,

    async recentContent(channel) {
      const query = { fields: 'id,created_time', limit: '20' };
      const token = channel.accessToken;
      const posts = await graph.get('/me/published_posts', query, token, recentPosts, 'the Page\'s posts');
      return posts.data.map((post) => ({ id: post.id, url: facebookUrl(post.id) }));
    },

    /**
     * DELETE /{id} with the Page token: a post (pages_manage_posts), a video, whose post goes with
     * it, or a comment of a later part (pages_manage_engagement). Graph answers an object it no
     * longer has with code 100/33 on HTTP 400, which counts as removed like a 404.
     */
    async remove(channel, { releaseId }) {
      const path = `/${encodeURIComponent(releaseId)}`;
      try {
        await removedEvenIfGone(async () => {
          const answer = await graph.delete(path, channel.accessToken, deleted, 'the deletion');
          if (!answer.success) throw permanentRefusal('Facebook did not delete the item');
        });
      } catch (error) {
        if (error instanceof PlatformError && isGraphObjectMissing(error.body)) return;
        throw error;
      }
    },

    tools: {},
    analytics: pageAnalytics(graph),
  };
}

/** Graph's custom alt text for a photo, where the user wrote one. */
function altOf(media: PublishMedia): Record<string, string> {
  return media.alt === null || media.alt === '' ? {} : { alt_text_custom: media.alt };
}

function permanentRefusal(message: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message });
}

function permanent(rule: string): PlatformError {
  return new PlatformError({ kind: 'permanent', provider, message: `${rule}; change the post and publish it again` });
}
