import { z } from 'zod';
import type { PartCheckpoint } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, type LemmyApi, type LemmySession } from './lemmy-api.ts';

/**
 * Lemmy takes no idempotency key (open-and-community.md 7.5), so a part is sent at most once this
 * way: before `POST /api/v3/post` or `/api/v3/comment` the attempt checkpoints when it sent
 * (`sentAt`); an attempt that finds the mark looks for the item among the account's own newest
 * posts or comments (`GET /api/v3/user?person_id=…&sort=New`) published since then: a post with
 * the part's title in its community, a comment under the part's parent, the text as sent
 * preferred (see `pick`). It takes the item when it is there, and sends only when it is not.
 * Lemmy writes the item before it answers and lists from the same database, so an item made by
 * an attempt whose answer was lost is in that list on the next attempt.
 */

const sentKey = 'sentAt';
/** The instance's clock and ours may differ; an item this much older than the mark still counts. */
const clockSlackMs = 5 * 60_000;
/** Lemmy's largest page (FETCH_LIMIT_MAX). */
const pageSize = '50';

const postItem = z.object({
  post: z.object({
    id: z.number().int(),
    name: z.string(),
    body: z.string().nullish(),
    community_id: z.number().int(),
    published: z.string(),
  }),
});
const commentItem = z.object({
  comment: z.object({
    id: z.number().int(),
    content: z.string(),
    post_id: z.number().int(),
    /** `0.<ancestor ids>.<own id>`: the parent is the id before the comment's own. */
    path: z.string(),
    published: z.string(),
  }),
});
const ownContent = z.object({
  posts: z.array(postItem).default([]),
  comments: z.array(commentItem).default([]),
});

export interface SentPost {
  communityId: number;
  name: string;
  body: string | undefined;
}

export interface SentComment {
  postId: number;
  parentId: number | null;
  content: string;
}

const parentOf = (path: string): number | null => {
  const parent = path.split('.').at(-2);
  return parent === undefined || parent === '0' ? null : Number(parent);
};

const since = (published: string, from: number): boolean => Date.parse(published) >= from;

/**
 * The item with the text as sent; failing that, the only item in the right place (same title in
 * the same community, or same parent), since an instance may rewrite the text it stores (its slur
 * filter, its image proxy). Two such items with other texts are not this part's to pick from.
 */
function pick<T extends { id: number }>(candidates: T[], sameText: (item: T) => boolean): number | null {
  const exact = candidates.find(sameText);
  if (exact !== undefined) return exact.id;
  const [only, other] = candidates;
  return only !== undefined && other === undefined ? only.id : null;
}

/** The account's own newest items, where a part an unanswered attempt sent would be. */
export function ownItems(api: LemmyApi, session: LemmySession) {
  async function newest(query: Record<string, string>): Promise<z.infer<typeof ownContent>> {
    const me = await api.me(session);
    const answer = ownContent.safeParse(await api.call(session, {
      method: 'GET',
      path: '/api/v3/user',
      query: { person_id: String(me.id), sort: 'New', limit: pageSize, ...query },
    }));
    if (!answer.success) {
      // Without the list SPS cannot tell whether the part is on Lemmy, and guessing could post it twice.
      const message = 'Lemmy answered the account\'s posts in a shape SPS could not read';
      throw new PlatformError({ kind: 'unconfirmed', provider, message });
    }
    return answer.data;
  }

  return {
    async findPost(sent: SentPost, from: number): Promise<number | null> {
      const { posts } = await newest({ community_id: String(sent.communityId) });
      const candidates = posts.map(({ post }) => post).filter((post) => post.community_id === sent.communityId
        && post.name === sent.name && since(post.published, from));
      return pick(candidates, (post) => (post.body ?? '') === (sent.body ?? ''));
    },
    async findComment(sent: SentComment, from: number): Promise<number | null> {
      const { comments } = await newest({});
      const candidates = comments.map(({ comment }) => comment).filter((comment) => comment.post_id === sent.postId
        && parentOf(comment.path) === sent.parentId && since(comment.published, from));
      return pick(candidates, (comment) => comment.content === sent.content);
    },
  };
}

export interface OnceStep {
  checkpoint: PartCheckpoint;
  /** The item an earlier attempt made, looked for among items published since `from` (ms). */
  find(from: number): Promise<number | null>;
  /** The create call; answers the new item's id. */
  send(): Promise<number>;
  now: () => number;
}

/** Finds what an unanswered earlier attempt made, or marks this attempt and sends. */
export async function sendOnce(step: OnceStep): Promise<number> {
  const earlier = Date.parse(step.checkpoint.values[sentKey] ?? '');
  if (Number.isNaN(earlier)) {
    await step.checkpoint.save({ [sentKey]: new Date(step.now()).toISOString() });
  } else {
    // The first mark stays: looking from the earliest attempt covers every later one too.
    const found = await step.find(earlier - clockSlackMs);
    if (found !== null) return found;
  }
  return step.send();
}
