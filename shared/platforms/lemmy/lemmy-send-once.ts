import { z } from 'zod';
import { pickSent } from '../kit/send-once.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { provider, type LemmyApi, type LemmySession } from './lemmy-api.ts';

/**
 * Lemmy takes no idempotency key (open-and-community.md 7.5), so a part is sent at most once the
 * kit's way (kit/send-once.ts: a mark before `POST /api/v3/post` or `/api/v3/comment`), with
 * these look-ups for an attempt that finds the mark: the account's own newest posts or comments
 * (`GET /api/v3/user?person_id=…&sort=New`) published since then, a post with the part's title
 * in its community, a comment under the part's parent, the text as sent preferred (`pickSent`).
 * Lemmy writes the item before it answers and lists from the same database, so an item made by
 * an attempt whose answer was lost is in that list on the next attempt.
 */

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
      throw unreadableAnswer(provider, 'Lemmy answered the account\'s posts in a shape', { kind: 'unconfirmed' });
    }
    return answer.data;
  }

  return {
    async findPost(sent: SentPost, from: number): Promise<number | null> {
      const { posts } = await newest({ community_id: String(sent.communityId) });
      const candidates = posts.map(({ post }) => post).filter((post) => post.community_id === sent.communityId
        && post.name === sent.name && since(post.published, from));
      return pickSent(candidates, (post) => (post.body ?? '') === (sent.body ?? ''))?.id ?? null;
    },
    async findComment(sent: SentComment, from: number): Promise<number | null> {
      const { comments } = await newest({});
      const candidates = comments.map(({ comment }) => comment).filter((comment) => comment.post_id === sent.postId
        && parentOf(comment.path) === sent.parentId && since(comment.published, from));
      return pickSent(candidates, (comment) => comment.content === sent.content)?.id ?? null;
    },
  };
}
