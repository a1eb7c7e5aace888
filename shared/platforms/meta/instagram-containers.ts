import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { PartCheckpoint, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import type { instagramSettings } from './instagram-post-rules.ts';
import type { InstagramGraph } from './instagram-graph.ts';

/**
 * Instagram's content publishing protocol, the same on graph.facebook.com and graph.instagram.com:
 * a container per media (`POST /{ig-user-id}/media`, Instagram fetches the file from its public
 * URL), a CAROUSEL container over several, its `status_code` polled until FINISHED, then
 * `POST /{ig-user-id}/media_publish creation_id=` makes the post.
 * Facts: ../shared/platforms/oauth-majors.md, sections 4.2, 4.3 and 5.2.
 *
 * Exactly once. Every container id is saved in the part's checkpoint the moment Instagram answers
 * with it, before anything is published (`children`, then `container` with `containerAt`), and
 * the media id as soon as media_publish answers (`media`). A later attempt at the part reads them:
 * - `media` saved: that is the post; nothing is created or published again.
 * - the container is FINISHED (or still IN_PROGRESS): it was never published; it is published now.
 * - the container is PUBLISHED: media_publish went through but its answer was lost (or the
 *   worker died before the write). The post is found among the account's recent media
 *   (`GET /{ig-user-id}/media`) by its caption, published after the container was made; if no
 *   single one matches, the part is `unconfirmed` and never sent again by itself. Stories carry
 *   no caption and are not listed there, so a published story container is `unconfirmed` too.
 * - the container EXPIRED (24 hours): nothing was published; the containers are created anew.
 */

/** The post settings, parsed (definition.ts): the kind of post and its feed options. */
export type InstagramSettings = z.output<typeof instagramSettings>;

/** How often a container's status is read while Instagram processes it. */
export interface ContainerTiming {
  /** Wait before the second read (the first is immediate); doubles up to `maxPollMs`. */
  firstPollMs: number;
  maxPollMs: number;
  /** After this long the attempt gives up (retryable): the checkpoint keeps the container for the next one. */
  maxWaitMs: number;
}

/** Meta suggests reading the status about once a minute for up to five minutes; small files are ready at once. */
export const defaultContainerTiming: ContainerTiming = { firstPollMs: 1_000, maxPollMs: 30_000, maxWaitMs: 5 * 60_000 };

export interface ContainerPost {
  accountId: string;
  caption: string;
  media: PublishMedia[];
  settings: InstagramSettings;
  checkpoint: PartCheckpoint;
}

type StatusCode = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';

const createdId = z.object({ id: z.string().min(1) });
const containerStatus = z.object({
  status_code: z.enum(['IN_PROGRESS', 'FINISHED', 'ERROR', 'EXPIRED', 'PUBLISHED']),
  status: z.string().optional(),
});
const recentMedia = z.object({
  data: z.array(z.object({ id: z.string(), caption: z.string().optional(), timestamp: z.string().optional() })),
});

/** Containers made before a crash may be dated a little before our own clock says. */
const clockSlackMs = 5 * 60_000;

/** Meta writes `2026-11-21T10:00:00+0000`; Date.parse wants the offset's colon. */
export function parseGraphTime(text: string | undefined): number | null {
  if (text === undefined) return null;
  const time = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(time) ? null : time;
}

function isStory(post: ContainerPost): boolean {
  return post.settings.type === 'story';
}

/** The fields of one container, by what it holds and where it goes. */
function containerFields(
  post: ContainerPost,
  item: PublishMedia,
  role: 'single' | 'carousel-item',
): Record<string, string> {
  const fields: Record<string, string> = {};
  if (isStory(post)) {
    fields.media_type = 'STORIES';
  } else if (role === 'carousel-item') {
    fields.is_carousel_item = 'true';
    if (item.kind === 'video') fields.media_type = 'VIDEO';
  } else if (item.kind === 'video') {
    // Since 2023 a feed video is a Reel; `VIDEO` remains only for carousel items.
    fields.media_type = 'REELS';
    if (post.settings.share_to_feed !== undefined) fields.share_to_feed = String(post.settings.share_to_feed);
    if (post.settings.thumb_offset !== undefined) fields.thumb_offset = String(post.settings.thumb_offset);
  }
  if (item.kind === 'video') fields.video_url = item.url;
  else fields.image_url = item.url;
  if (item.kind === 'image' && item.alt !== null && item.alt !== '' && !isStory(post)) fields.alt_text = item.alt;
  if (role === 'single' && !isStory(post)) Object.assign(fields, feedFields(post));
  return fields;
}

/** What a feed post (single or carousel) carries besides its media. */
function feedFields(post: ContainerPost): Record<string, string> {
  const fields: Record<string, string> = { caption: post.caption };
  if (post.settings.collaborators !== undefined) fields.collaborators = JSON.stringify(post.settings.collaborators);
  if (post.settings.location_id !== undefined) fields.location_id = post.settings.location_id;
  return fields;
}

async function createContainer(
  graph: InstagramGraph,
  accountId: string,
  fields: Record<string, string>,
): Promise<string> {
  const answer = createdId.safeParse(await graph.post(`/${accountId}/media`, fields));
  if (!answer.success) throw graph.unreadable('a container', answer.error);
  return answer.data.id;
}

/**
 * Reads a container's status until Instagram is done with it: FINISHED, PUBLISHED or EXPIRED.
 * ERROR fails the part with Instagram's reason; a container still processing after `maxWaitMs`
 * leaves the part for a later attempt, which finds it in the checkpoint.
 */
async function settledStatus(graph: InstagramGraph, containerId: string, timing: ContainerTiming): Promise<StatusCode> {
  const deadline = Date.now() + timing.maxWaitMs;
  let wait = timing.firstPollMs;
  for (;;) {
    const read = containerStatus.safeParse(await graph.get(`/${containerId}`, { fields: 'status_code,status' }));
    if (!read.success) throw graph.unreadable('a container status', read.error);
    const { status_code: code, status } = read.data;
    if (code === 'ERROR') {
      const message = status ?? 'Instagram could not process the media';
      throw new PlatformError({ kind: 'permanent', provider: graph.provider, message });
    }
    if (code !== 'IN_PROGRESS') return code;
    if (Date.now() + wait > deadline) {
      const message = `Instagram is still processing container ${containerId}; `
        + 'publishing continues on the next attempt';
      throw new PlatformError({ kind: 'retryable', provider: graph.provider, message });
    }
    await sleep(wait);
    wait = Math.min(wait * 2, timing.maxPollMs);
  }
}

/** A settled container that must be publishable: a fresh one expiring at once is Instagram's trouble. */
async function finished(graph: InstagramGraph, containerId: string, timing: ContainerTiming): Promise<void> {
  const code = await settledStatus(graph, containerId, timing);
  if (code === 'FINISHED') return;
  const message = `Instagram reports container ${containerId} as ${code} before it was published`;
  throw new PlatformError({ kind: 'retryable', provider: graph.provider, message });
}

/** Carousel items, reusing the ones an earlier attempt made that are still usable. */
async function carouselItems(graph: InstagramGraph, post: ContainerPost, timing: ContainerTiming): Promise<string[]> {
  const saved = (post.checkpoint.values.children ?? '').split(',').filter((id) => id !== '');
  const items: string[] = [];
  for (const [index, item] of post.media.entries()) {
    const earlier = saved[index];
    if (earlier !== undefined && await settledStatus(graph, earlier, timing) === 'FINISHED') {
      items.push(earlier);
      continue;
    }
    items.push(await createContainer(graph, post.accountId, containerFields(post, item, 'carousel-item')));
    await post.checkpoint.save({ children: items.join(',') });
  }
  for (const id of items) await finished(graph, id, timing);
  return items;
}

/** The container to publish, each id checkpointed as soon as Instagram gives it. */
async function createPostContainer(
  graph: InstagramGraph,
  post: ContainerPost,
  timing: ContainerTiming,
): Promise<string> {
  const [first] = post.media;
  if (first === undefined) {
    const message = 'Instagram has no text-only posts';
    throw new PlatformError({ kind: 'permanent', provider: graph.provider, message });
  }
  let fields: Record<string, string>;
  if (post.media.length === 1) {
    fields = containerFields(post, first, 'single');
  } else {
    const children = await carouselItems(graph, post, timing);
    fields = { media_type: 'CAROUSEL', children: children.join(','), ...feedFields(post) };
  }
  const containerAt = new Date().toISOString();
  const container = await createContainer(graph, post.accountId, fields);
  await post.checkpoint.save({ container, containerAt });
  return container;
}

async function publishContainer(graph: InstagramGraph, post: ContainerPost, containerId: string): Promise<string> {
  const published = await graph.post(`/${post.accountId}/media_publish`, { creation_id: containerId });
  const answer = createdId.safeParse(published);
  if (!answer.success) throw graph.unreadable('a published media', answer.error);
  await post.checkpoint.save({ media: answer.data.id });
  return answer.data.id;
}

/**
 * The media a PUBLISHED container became, found among the account's latest media by caption and
 * time; `unconfirmed` when none (or several) match, so nothing is published a second time.
 */
async function publishedMedia(graph: InstagramGraph, post: ContainerPost, containerId: string): Promise<string> {
  const unconfirmed = (why: string) => new PlatformError({
    kind: 'unconfirmed',
    provider: graph.provider,
    message: `Instagram published container ${containerId} but ${why}`,
  });
  if (isStory(post)) throw unconfirmed('a story cannot be told apart in the account’s media');
  const fields = { fields: 'id,caption,timestamp,permalink', limit: '50' };
  const listed = recentMedia.safeParse(await graph.get(`/${post.accountId}/media`, fields));
  if (!listed.success) throw graph.unreadable('the account’s media', listed.error);
  const since = (parseGraphTime(post.checkpoint.values.containerAt) ?? 0) - clockSlackMs;
  const matches = listed.data.data.filter((item) => (item.caption ?? '') === post.caption
    && (parseGraphTime(item.timestamp) ?? 0) >= since);
  const [found] = matches;
  if (found === undefined) throw unconfirmed('no media with this caption was found among the account’s latest');
  if (matches.length > 1) throw unconfirmed(`${matches.length} media with this caption were found`);
  await post.checkpoint.save({ media: found.id });
  return found.id;
}

/** Publishes one post through containers, resuming from the checkpoint; answers the media id. */
export async function publishByContainers(
  graph: InstagramGraph,
  post: ContainerPost,
  timing: ContainerTiming = defaultContainerTiming,
): Promise<string> {
  const { media: publishedBefore, container: earlier } = post.checkpoint.values;
  if (publishedBefore !== undefined && publishedBefore !== '') return publishedBefore;
  if (earlier !== undefined && earlier !== '') {
    const code = await settledStatus(graph, earlier, timing);
    if (code === 'FINISHED') return publishContainer(graph, post, earlier);
    if (code === 'PUBLISHED') return publishedMedia(graph, post, earlier);
    // EXPIRED: nothing was published from it, and its items expired with it.
    await post.checkpoint.save({ children: '', container: '' });
  }
  const container = await createPostContainer(graph, post, timing);
  await finished(graph, container, timing);
  return publishContainer(graph, post, container);
}
