import { z } from 'zod';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { provider, type XApi } from './x-api.ts';

/**
 * Finding, among the account's latest posts, one an earlier attempt at a part made although
 * its answer never reached us. X has no idempotency key on `POST /2/tweets`, so this look-up
 * (`GET /2/users/:id/tweets`) is what keeps a retried part from posting twice.
 */

const timelinePost = z.object({
  id: z.string().regex(/^\d+$/),
  text: z.string(),
  created_at: z.string().optional(),
  referenced_tweets: z.array(z.object({ type: z.string(), id: z.string() })).optional(),
  entities: z.object({
    urls: z.array(z.object({
      url: z.string(),
      expanded_url: z.string().optional(),
      media_key: z.string().optional(),
    }).loose()).optional(),
  }).loose().optional(),
});

export const timelineAnswer = z.object({ data: z.array(timelinePost).optional() });

export type TimelinePost = z.infer<typeof timelinePost>;

/** Our clock and X's may differ by this much; an identical post X would have refused as duplicate anyway. */
const clockSlackMs = 2 * 60_000;

/**
 * The text as it was sent, read back from X's rendering of it: X escapes `&`, `<` and `>`,
 * wraps every link in a t.co link (entities give the original) and appends a t.co link to
 * attached media (an entity with a `media_key`).
 */
export function sentTextOf(post: TimelinePost): string {
  let text = post.text;
  for (const link of post.entities?.urls ?? []) {
    text = text.replace(link.url, link.media_key === undefined ? link.expanded_url ?? link.url : '');
  }
  const unescaped = text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
  return unescaped.trim().normalize('NFC');
}

/** X's `start_time` takes whole seconds: `YYYY-MM-DDTHH:mm:ssZ`. */
function xTime(at: number): string {
  return `${new Date(at).toISOString().slice(0, 19)}Z`;
}

export interface SentPart {
  userId: string;
  text: string;
  /** The post this part answers; null for a thread's first part. */
  parentId: string | null;
  /** When the earlier attempt was about to post (the checkpoint's marker). */
  attemptAt: Date;
}

/** The id of the post an earlier attempt made for this part, or null when X shows none. */
export async function findSentPart(api: XApi, part: SentPart): Promise<string | null> {
  const since = part.attemptAt.getTime() - clockSlackMs;
  const answer = timelineAnswer.safeParse(await api({
    method: 'GET',
    path: `/2/users/${part.userId}/tweets`,
    query: {
      max_results: '100',
      start_time: xTime(since),
      'tweet.fields': 'created_at,referenced_tweets,entities',
    },
  }));
  if (!answer.success) {
    // Without the list SPS cannot tell whether the part is on X, and guessing could post it twice.
    throw unreadableAnswer(provider, 'X answered the account\'s posts in a shape', { kind: 'unconfirmed' });
  }
  const wanted = part.text.trim().normalize('NFC');
  const found = (answer.data.data ?? []).find((post) => {
    const repliedTo = post.referenced_tweets?.find((reference) => reference.type === 'replied_to')?.id ?? null;
    const createdAt = post.created_at === undefined ? Number.NaN : Date.parse(post.created_at);
    return repliedTo === part.parentId && createdAt >= since && sentTextOf(post) === wanted;
  });
  return found?.id ?? null;
}
