import { z } from 'zod';
import type { PublishInput } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { sendOnce } from '../kit/send-once.ts';
import type { GmbCredential } from './credential.ts';
import { provider, unreadable, type GmbApi } from './gmb-api.ts';
import {
  localPost, localPostBody, readGmbSettings, refusedByPolicy, type LocalPost, type LocalPostBody,
} from './gmb-local-post.ts';

/**
 * Publishes one local post (`POST /v4/accounts/{a}/locations/{l}/localPosts`) exactly once.
 * Google takes no idempotency key for it, so (kit/send-once.ts) the attempt checkpoints when it
 * sent before the create; an attempt that finds that mark lists the location's local posts,
 * newest first, and takes the one with the same summary and topic type (and event title) made
 * since then. A miss is taken to mean the earlier attempt made nothing (Google documents no
 * delay between a create's answer and the post's listing), and only then is the post sent again.
 */

/** Google's clock and ours may differ: a post this much older than the mark still counts. */
const clockSlackMs = 5 * 60_000;
/** localPosts.list's largest page. */
const pageSize = '100';
/** A location rarely posts more than this many pages between two attempts; past it SPS cannot tell. */
const maxPages = 5;

const postPage = z.object({
  localPosts: z.array(localPost).optional(),
  nextPageToken: z.string().optional(),
});

export function localPostsPath(target: Pick<GmbCredential, 'account' | 'location'>): string {
  return `/v4/${target.account}/${target.location}/localPosts`;
}

/** One page of the location's local posts, newest first; `unread` is thrown when it does not fit. */
export async function localPostsPage(
  api: GmbApi,
  page: { path: string; size: string; pageToken?: string | undefined },
  unread: (cause: unknown) => PlatformError = (cause) => unreadable('the location\'s local posts', cause),
): Promise<z.infer<typeof postPage>> {
  const query = new URLSearchParams({
    pageSize: page.size, ...(page.pageToken === undefined ? {} : { pageToken: page.pageToken }),
  });
  const answer = await api.request({ method: 'GET', service: 'mybusiness', path: page.path, query });
  const parsed = postPage.safeParse(answer);
  if (!parsed.success) throw unread(parsed.error);
  return parsed.data;
}

/** Without a readable list SPS cannot tell whether the post is there; guessing could post it twice. */
function unconfirmedList(cause: unknown): PlatformError {
  const message = 'Google Business Profile listed the location\'s posts in a shape SPS could not read, so SPS '
    + 'cannot tell whether an earlier attempt published this one';
  return new PlatformError({ kind: 'unconfirmed', provider, message, cause });
}

/** Google leaves `summary` out of a post that has none. */
function sameAsSent(post: LocalPost, sent: LocalPostBody): boolean {
  return (post.summary ?? '').trim() === (sent.summary ?? '').trim() && post.topicType === sent.topicType
    && (sent.event === undefined || post.event?.title === sent.event.title);
}

const createdSince = (post: LocalPost, from: number): boolean =>
  post.createTime !== undefined && Date.parse(post.createTime) >= from;

/** The post an unanswered earlier attempt made, among the location's posts made since `from`. */
async function findSent(api: GmbApi, path: string, sent: LocalPostBody, from: number): Promise<LocalPost | null> {
  let pageToken: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const listed = await localPostsPage(api, { path, size: pageSize, pageToken }, unconfirmedList);
    const posts = listed.localPosts ?? [];
    const found = posts.find((post) => createdSince(post, from) && sameAsSent(post, sent));
    if (found !== undefined) return found;
    // Newest first: once a page reaches past the mark, no later page holds the post.
    const reachedMark = posts.some((post) => !createdSince(post, from));
    if (reachedMark || listed.nextPageToken === undefined || listed.nextPageToken === '') return null;
    pageToken = listed.nextPageToken;
  }
  const message = `the location made more than ${String(maxPages * Number(pageSize))} posts since the earlier `
    + 'attempt, so SPS cannot tell whether that attempt published this one';
  throw new PlatformError({ kind: 'unconfirmed', provider, message });
}

export async function publishLocalPost(api: GmbApi, target: GmbCredential, input: PublishInput): Promise<LocalPost> {
  const body = localPostBody(input, readGmbSettings(input.settings));
  const path = localPostsPath(target);
  const post = await sendOnce<LocalPost>({
    checkpoint: input.checkpoint,
    now: Date.now,
    clockSlackMs,
    find: (from) => findSent(api, path, body, from),
    send: async () => {
      const answer = await api.request({ method: 'POST', service: 'mybusiness', path, json: body });
      const parsed = localPost.safeParse(answer);
      if (parsed.success) return parsed.data;
      // Google answered 2xx, so the post is likely there, under a name SPS could not read.
      throw unreadableAnswer(provider, 'Google Business Profile answered the new post in a shape', {
        kind: 'unconfirmed', cause: parsed.error, consequence: 'it may be published',
      });
    },
  });
  const refused = refusedByPolicy(post);
  if (refused !== null) throw refused;
  return post;
}
