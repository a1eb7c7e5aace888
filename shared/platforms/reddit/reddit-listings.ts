import { z } from 'zod';
import type { PublishResult } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import type { RedditApi } from './reddit-api.ts';
import { provider } from './reddit-errors.ts';

/**
 * The account's own listings (`/user/<name>/submitted`, `/user/<name>/comments`) and the items
 * in them. They are how SPS finds a post or comment an earlier attempt made when Reddit's answer
 * never arrived, and where a media submission shows up, since Reddit answers those without the
 * post's id. Both listings need the `history` scope.
 */

/** A post as listings and `/api/info` describe it (kind t3). */
export const submission = z.object({
  id: z.string(),
  name: z.string(),
  title: z.string(),
  subreddit: z.string(),
  created_utc: z.number(),
  permalink: z.string(),
  score: z.number().optional(),
  upvote_ratio: z.number().optional(),
  num_comments: z.number().optional(),
  num_crossposts: z.number().optional(),
});

/** A comment as listings describe it (kind t1). */
export const userComment = z.object({
  id: z.string(),
  name: z.string(),
  body: z.string(),
  parent_id: z.string(),
  created_utc: z.number(),
  permalink: z.string(),
  score: z.number().optional(),
});

export function listingOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.object({
      children: z.array(z.object({ kind: z.string(), data: item })),
      after: z.string().nullable().optional(),
    }),
  });
}

const submissions = listingOf(submission);
const comments = listingOf(userComment);

export type Submission = z.infer<typeof submission>;

/** Reddit's permalinks are paths on www.reddit.com. */
export const permalinkUrl = (permalink: string): string => `https://www.reddit.com${permalink}`;

export const released = (item: { name: string; permalink: string }): PublishResult => (
  { releaseId: item.name, releaseURL: permalinkUrl(item.permalink) }
);

/** Our clock and Reddit's may differ by this much; an older item with the same title is another post. */
const clockSlackMs = 2 * 60_000;

/** The largest page Reddit serves: the recent items an earlier attempt could have made. */
const pageSize = '100';

/**
 * A 403 on the account's own listings is a token without the `history` scope (channels
 * connected before SPS asked for it): only connecting again grants it.
 */
async function ownListing<T>(
  api: RedditApi,
  token: string,
  path: string,
  shape: z.ZodType<T>,
): Promise<T> {
  try {
    const answer = shape.safeParse(await api.request(token, {
      method: 'GET', path, query: { sort: 'new', limit: pageSize },
    }));
    if (answer.success) return answer.data;
  } catch (error) {
    if (!(error instanceof PlatformError) || error.httpStatus !== 403) throw error;
    const message = 'Reddit refused SPS the account\'s own posts (the history scope): connect the account again';
    throw new PlatformError({ kind: 'disconnected', provider, message, httpStatus: 403, cause: error });
  }
  // Without the list SPS cannot tell whether the item is on Reddit, and guessing could post it twice.
  throw unreadableAnswer(provider, 'Reddit answered the account\'s items in a shape', { kind: 'unconfirmed' });
}

const createdSince = (createdUtc: number, since: number): boolean => createdUtc * 1000 >= since - clockSlackMs;

/** The account's latest posts, newest first. */
export async function submittedBy(api: RedditApi, token: string, user: string): Promise<Submission[]> {
  const listing = await ownListing(api, token, `/user/${encodeURIComponent(user)}/submitted`, submissions);
  return listing.data.children.filter((child) => child.kind === 't3').map((child) => child.data);
}

export interface SentSubmission {
  user: string;
  subreddit: string;
  title: string;
  /** When the first attempt was about to submit (ms): the post cannot be older. */
  since: number;
}

/** The post an earlier attempt made: same subreddit and title, made since that attempt. */
export async function findSubmission(api: RedditApi, token: string, sent: SentSubmission): Promise<Submission | null> {
  const posts = await submittedBy(api, token, sent.user);
  const subreddit = sent.subreddit.toLowerCase();
  return posts.find((post) => post.subreddit.toLowerCase() === subreddit && post.title === sent.title
    && createdSince(post.created_utc, sent.since)) ?? null;
}

export interface SentComment {
  user: string;
  /** The fullname answered (`t3_...` or `t1_...`). */
  parent: string;
  text: string;
  since: number;
}

/** The comment an earlier attempt made: same parent and text, made since that attempt. */
export async function findComment(api: RedditApi, token: string, sent: SentComment): Promise<PublishResult | null> {
  const listing = await ownListing(api, token, `/user/${encodeURIComponent(sent.user)}/comments`, comments);
  // Reddit keeps the Markdown as sent but drops surrounding whitespace.
  const text = sent.text.trim();
  const found = listing.data.children.find(({ kind, data }) => kind === 't1' && data.parent_id === sent.parent
    && data.body.trim() === text && createdSince(data.created_utc, sent.since));
  return found === undefined ? null : released(found.data);
}
