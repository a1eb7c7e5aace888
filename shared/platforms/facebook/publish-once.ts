import { z } from 'zod';
import type { PartCheckpoint } from '../kit/platform-adapter.ts';
import type { PageGraph } from './page-graph.ts';

/**
 * Exactly once without an idempotency key: Graph has none, so before the call that publishes
 * (the feed post, the published photo, the video, the comment) the part's checkpoint records
 * when it was sent. An attempt that finds that mark knows an earlier one may have published
 * and lost the answer (a crash, a broken connection): it looks on the Page for an item with
 * this exact text made since the mark, and takes it as the part's release instead of
 * publishing again. Found nothing: it publishes, telling the call that a duplicate refusal now
 * means "already published" (page-graph.ts turns it into `unconfirmed`).
 */

/** Our clock and Meta's may differ; an item up to this much older than the mark still counts. */
const clockSkewSeconds = 300;
/** How many of the newest items are searched; a Page rarely publishes more between two attempts. */
const searchDepth = '50';

const sentAtKey = 'sentAt';

export interface PublishOnce {
  checkpoint: PartCheckpoint;
  /** The Page's item with this text made since `sinceSeconds`, or null. */
  find: (sinceSeconds: number) => Promise<string | null>;
  /** The publishing call; `repeat` when an earlier attempt may have made it already. */
  send: (repeat: boolean) => Promise<string>;
}

export async function publishOnce({ checkpoint, find, send }: PublishOnce): Promise<string> {
  const mark = checkpoint.values[sentAtKey];
  if (mark !== undefined) {
    const found = await find(Number(mark) - clockSkewSeconds);
    if (found !== null) return found;
    return send(true);
  }
  await checkpoint.save({ [sentAtKey]: String(Math.floor(Date.now() / 1000)) });
  return send(false);
}

/** Graph leaves `message` out of an item that has none. */
const sameText = (found: string | undefined, text: string) => (found ?? '').trim() === text.trim();

/** Graph's `created_time`, `2026-11-21T10:00:00+0000`, in seconds. */
function seconds(createdTime: string): number {
  return Math.floor(Date.parse(createdTime.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) / 1000);
}

const items = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

const postItem = z.object({ id: z.string().min(1), message: z.string().optional(), created_time: z.string() });
const videoItem = z.object({ id: z.string().min(1), description: z.string().optional(), created_time: z.string() });
const commentItem = postItem.extend({ from: z.object({ id: z.string() }).optional() });

export interface PageSearch {
  graph: PageGraph;
  token: string;
  text: string;
  sinceSeconds: number;
}

/** A post the Page published with this text (`/{page-id}/published_posts`, newest first). */
export async function findPagePost(search: PageSearch & { pageId: string }): Promise<string | null> {
  const { graph, token, text, sinceSeconds, pageId } = search;
  const query = { fields: 'id,message,created_time', since: String(sinceSeconds), limit: searchDepth };
  const posts = await graph.get(`/${pageId}/published_posts`, query, token, items(postItem), 'the Page\'s posts');
  const match = posts.data.find((post) => sameText(post.message, text) && seconds(post.created_time) >= sinceSeconds);
  return match?.id ?? null;
}

/** A video the Page uploaded with this description (`/{page-id}/videos`, newest first). */
export async function findPageVideo(search: PageSearch & { pageId: string }): Promise<string | null> {
  const { graph, token, text, sinceSeconds, pageId } = search;
  const query = { fields: 'id,description,created_time', limit: searchDepth };
  const videos = await graph.get(`/${pageId}/videos`, query, token, items(videoItem), 'the Page\'s videos');
  const match = videos.data.find((video) => sameText(video.description, text)
    && seconds(video.created_time) >= sinceSeconds);
  return match?.id ?? null;
}

/** A comment the Page made with this text under `parentId`, newest first. */
export async function findPageComment(
  search: PageSearch & { pageId: string; parentId: string },
): Promise<string | null> {
  const { graph, token, text, sinceSeconds, pageId, parentId } = search;
  const query = {
    fields: 'id,message,created_time,from', order: 'reverse_chronological', filter: 'stream', limit: searchDepth,
  };
  const comments = await graph.get(`/${parentId}/comments`, query, token, items(commentItem), 'the post\'s comments');
  const match = comments.data.find((comment) => comment.from?.id === pageId && sameText(comment.message, text)
    && seconds(comment.created_time) >= sinceSeconds);
  return match?.id ?? null;
}
