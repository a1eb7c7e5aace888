import { z } from 'zod';
import { withMarkdownImages } from '../kit/content-format.ts';
import type { PartCheckpoint, PublishInput } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { parseInput } from '../kit/parse-input.ts';
import { pickSent, unansweredSendAt } from '../kit/send-once.ts';
import { hashnodeSettings } from './definition.ts';
import { provider, unreadable, type HashnodeApi } from './hashnode-graphql.ts';

export const publishPostMutation = `mutation PublishPost($input: PublishPostInput!) {
  publishPost(input: $input) { post { id slug url } }
}`;

/** Deletes one of the user's posts (its id as publishPost answered it). */
export const removePostMutation = `mutation RemovePost($input: RemovePostInput!) {
  removePost(input: $input) { post { id } }
}`;

export const publicationPostsQuery = `query PublicationPosts($id: ObjectId!, $first: Int!) {
  publication(id: $id) {
    posts(first: $first) { edges { node { id title url publishedAt content { markdown } } } }
  }
}`;

export const publishedPost = z.object({
  publishPost: z.object({ post: z.object({ id: z.string().min(1), slug: z.string(), url: z.string() }) }),
});

const publicationPosts = z.object({
  publication: z.object({
    posts: z.object({
      edges: z.array(z.object({
        node: z.object({
          id: z.string(),
          title: z.string(),
          url: z.string(),
          publishedAt: z.string(),
          content: z.object({ markdown: z.string() }).nullable().optional(),
        }),
      })),
    }),
  }).nullable(),
});

/** Hashnode's edge cache keeps query answers about 25 s when it does not say (gql-skill). */
const defaultCacheSeconds = 25;
/** A publication's newest posts read by the look-up; more than this since the send is beyond a retry's reach. */
const lookupDepth = 20;

/**
 * The PublishPostInput of a part (design-blogging-business.md 5.2, the gql-beta schema the
 * settings follow). Hashnode takes images by address: the first attached image is the cover
 * unless the settings name one, the others follow the text as Markdown images.
 */
export function publishPostInput(input: PublishInput): Record<string, unknown> {
  const settings = parseInput(provider, 'Hashnode settings', hashnodeSettings, input.settings);
  if (input.media.some((item) => item.kind !== 'image')) {
    throw new PlatformError({ kind: 'permanent', provider, message: 'Hashnode takes images only' });
  }
  const images = input.media.map(({ url, alt }) => ({ url, alt }));
  const coverImage = settings.coverImage ?? images.shift()?.url;
  return {
    ...settings,
    contentMarkdown: withMarkdownImages(input.content, images),
    ...(coverImage === undefined ? {} : { coverImage }),
  };
}

/**
 * The post an unanswered publishPost made: among the publication's newest posts, one with the
 * part's title published since `from`, the Markdown as sent preferred (pickSent). A list the
 * edge cache made before this part was sent cannot show it: the attempt then waits for the cache
 * to expire (retryable, with the wait as retryAfterMs, so no attempt is spent).
 */
export async function findPublishedPost(
  api: HashnodeApi,
  token: string,
  sent: { publicationId: string; title: string; contentMarkdown: string; checkpoint: PartCheckpoint },
  from: number,
): Promise<{ id: string; url: string } | null> {
  const answer = await api(token, publicationPostsQuery, { id: sent.publicationId, first: lookupDepth });
  const sentAt = unansweredSendAt(sent.checkpoint);
  if (answer.ageSeconds !== null && sentAt !== null && Date.now() - answer.ageSeconds * 1000 < sentAt) {
    const left = (answer.maxAgeSeconds ?? defaultCacheSeconds) - answer.ageSeconds;
    const message = 'Hashnode answered from its cache, made before the post was sent; looking again once it expires';
    throw new PlatformError({ kind: 'retryable', provider, message, retryAfterMs: Math.max(1, left) * 1000 });
  }
  const parsed = publicationPosts.safeParse(answer.data);
  if (!parsed.success) throw unreadable('the publication\'s posts', parsed.error);
  if (parsed.data.publication === null) {
    const message = `Hashnode has no publication ${sent.publicationId} to look for the post in`;
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
  const candidates = parsed.data.publication.posts.edges.map(({ node }) => node)
    .filter((post) => post.title === sent.title && Date.parse(post.publishedAt) >= from);
  return pickSent(candidates, (post) => post.content?.markdown === sent.contentMarkdown);
}
