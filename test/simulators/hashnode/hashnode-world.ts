import { randomBytes } from 'node:crypto';

/**
 * A refusal a resolver answers, with Hashnode's code: graphql-js carries the error's `extensions`
 * into the one it reports, so the answer's error has the code as Apollo Server writes it.
 */
export class HashnodeFailure extends Error {
  readonly extensions: { code: string };

  constructor(message: string, code: string) {
    super(message);
    this.extensions = { code };
  }
}

/** A field the resolvers answer with a function of its arguments (graphql-js's default resolver calls it). */
type FieldResolver = (args: Record<string, unknown>) => unknown;

/**
 * What the simulated Hashnode holds (users, publications with their members, series and posts)
 * and how its resolvers answer: `me` for the token's user, public `post`, `user` and `tag`,
 * Pro-gated `publication`, and `publishPost` checked the way the gql-skill notes describe (at
 * most 15 tags by slug, OWNER or EDITOR only, the publication on Pro); the schema's own checks
 * (required fields, unknown input fields) come before, in hashnode-operations.ts.
 * Facts: design-blogging-business.md, section 5.
 */

export interface SimulatedHashnodeUser {
  id: string;
  username: string;
  name: string;
  profilePicture: string | null;
  email: string;
  tokens: string[];
  followersCount?: number;
}

export type PublicationRole = 'OWNER' | 'EDITOR' | 'CONTRIBUTOR';

export interface SimulatedPublication {
  id: string;
  title: string;
  url: string;
  pro: boolean;
  members: Record<string, PublicationRole>;
  series?: { id: string; name: string; slug: string }[];
  followersCount?: number;
}

export interface SimulatedPost {
  id: string;
  publicationId: string;
  authorId: string;
  title: string;
  slug: string;
  url: string;
  contentMarkdown: string;
  tags: { slug: string; name: string }[];
  coverImage: string | null;
  publishedAt: string;
  views: number;
  reactionCount: number;
  responseCount: number;
  replyCount: number;
  /** The PublishPostInput as sent, for tests. */
  input: Record<string, unknown>;
}

export interface HashnodeWorld {
  users: SimulatedHashnodeUser[];
  publications: SimulatedPublication[];
  posts: SimulatedPost[];
}

export const objectId = (): string => randomBytes(12).toString('hex');
export const proPlanMessage = 'Publication does not have an active Pro plan. '
  + 'Upgrade in your dashboard to access this via the API.';

const badInput = (message: string) => new HashnodeFailure(message, 'BAD_USER_INPUT');

/** `first` is an Int! the schema made sure of; Hashnode clamps page sizes to 100 rather than refusing them. */
function firstOf(args: Record<string, unknown>): number {
  return Math.min(Math.max(Number(args.first), 0), 100);
}

function connection<T>(items: readonly T[], args: Record<string, unknown>) {
  const page = items.slice(0, firstOf(args));
  return {
    edges: page.map((node, index) => ({ node, cursor: String(index + 1) })),
    pageInfo: { hasNextPage: items.length > page.length, endCursor: page.length === 0 ? null : String(page.length) },
    totalDocuments: items.length,
  };
}

export function resolvers(world: HashnodeWorld) {
  const userView = (user: SimulatedHashnodeUser): Record<string, unknown> => ({
    id: user.id, username: user.username, name: user.name, profilePicture: user.profilePicture, email: user.email,
    followersCount: user.followersCount ?? 0, followingsCount: 0, deactivated: false,
    publications: ((args) => connection(world.publications.filter((pub) => pub.members[user.id] !== undefined)
      .map(publicationView), args)) satisfies FieldResolver,
    posts: ((args) => connection(newest(world.posts.filter((post) => post.authorId === user.id))
      .map(postView), args)) satisfies FieldResolver,
  });

  const newest = (posts: SimulatedPost[]) => [...posts].sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));

  function postView(post: SimulatedPost): Record<string, unknown> {
    const author = world.users.find((user) => user.id === post.authorId);
    return {
      id: post.id, title: post.title, slug: post.slug, url: post.url, publishedAt: post.publishedAt,
      subtitle: post.input.subtitle ?? null, canonicalUrl: post.input.originalArticleURL ?? null,
      brief: post.contentMarkdown.slice(0, 150),
      content: { markdown: post.contentMarkdown, html: '', text: post.contentMarkdown },
      coverImage: post.coverImage === null ? null : { url: post.coverImage },
      tags: post.tags.map((tag) => ({ id: tag.slug, ...tag })),
      views: post.views, reactionCount: post.reactionCount, responseCount: post.responseCount,
      replyCount: post.replyCount,
      readTimeInMinutes: 1,
      author: author === undefined ? null : userView(author),
    };
  }

  function publicationView(pub: SimulatedPublication): Record<string, unknown> {
    return {
      id: pub.id, title: pub.title, displayTitle: pub.title, url: pub.url, isTeam: Object.keys(pub.members).length > 1,
      followersCount: pub.followersCount ?? 0,
      posts: ((args) => connection(newest(world.posts.filter((post) => post.publicationId === pub.id)).map(postView),
        args)) satisfies FieldResolver,
      seriesList: ((args) => connection(pub.series ?? [], args)) satisfies FieldResolver,
    };
  }

  function publishPost(viewer: SimulatedHashnodeUser, input: unknown): Record<string, unknown> {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw badInput('Variable "$input" of required type "PublishPostInput!" was not provided.');
    }
    // The input's shape (known fields, required ones, scalar kinds) was checked with the
    // variables before execution (hashnode-operations.ts); what is left is what Hashnode decides.
    const fields = input as Record<string, unknown>;
    const tags = Array.isArray(fields.tags) ? fields.tags as Record<string, unknown>[] : [];
    if (tags.some((tag) => tag.slug === '')) throw badInput('A tag needs a slug.');
    if (tags.length > 15) throw badInput('A post can have at most 15 tags.');
    const title = String(fields.title).trim();
    if (title === '') throw badInput('Title is required.');
    const publication = world.publications.find((pub) => pub.id === fields.publicationId);
    if (publication === undefined) throw new HashnodeFailure('Publication not found', 'NOT_FOUND');
    const role = publication.members[viewer.id];
    if (role === undefined || role === 'CONTRIBUTOR') {
      throw new HashnodeFailure('You do not have permission to publish in this publication.', 'FORBIDDEN');
    }
    if (!publication.pro) throw new HashnodeFailure(proPlanMessage, 'FORBIDDEN');
    const id = objectId();
    const slug = typeof fields.slug === 'string' ? fields.slug
      : `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-${id.slice(-4)}`;
    const post: SimulatedPost = {
      id, publicationId: publication.id, authorId: viewer.id, title, slug, url: `${publication.url}/${slug}`,
      contentMarkdown: String(fields.contentMarkdown),
      tags: tags.map((tag) => ({
        slug: String(tag.slug), name: typeof tag.name === 'string' ? tag.name : String(tag.slug),
      })),
      coverImage: typeof fields.coverImage === 'string' ? fields.coverImage : null,
      publishedAt: new Date().toISOString(), views: 0, reactionCount: 0, responseCount: 0, replyCount: 0,
      input: fields,
    };
    world.posts.push(post);
    return { post: postView(post) };
  }

  /** removePost: the author's own post goes; an unknown one is NOT_FOUND, another's FORBIDDEN. */
  function removePost(viewer: SimulatedHashnodeUser, input: unknown): Record<string, unknown> {
    const id = typeof input === 'object' && input !== null ? (input as Record<string, unknown>).id : undefined;
    const post = world.posts.find((candidate) => candidate.id === id);
    if (post === undefined) throw new HashnodeFailure('Post not found', 'NOT_FOUND');
    if (post.authorId !== viewer.id) throw new HashnodeFailure('You can only remove your own posts.', 'FORBIDDEN');
    world.posts.splice(world.posts.indexOf(post), 1);
    return { post: postView(post) };
  }

  /** The root values of one request; `viewer` is the token's user, null when it has none. */
  return (viewer: SimulatedHashnodeUser | null, unauthenticated: () => never) => ({
    query: {
      me: () => (viewer === null ? unauthenticated() : userView(viewer)),
      post: ({ id }: Record<string, unknown>) => {
        const post = world.posts.find((candidate) => candidate.id === id);
        return post === undefined ? null : postView(post);
      },
      publication: ({ id }: Record<string, unknown>) => {
        const pub = world.publications.find((candidate) => candidate.id === id);
        if (pub === undefined) return null;
        if (!pub.pro) throw new HashnodeFailure(proPlanMessage, 'FORBIDDEN');
        return publicationView(pub);
      },
      user: ({ username }: Record<string, unknown>) => {
        const user = world.users.find((candidate) => candidate.username === username);
        return user === undefined ? null : userView(user);
      },
      tag: ({ slug }: Record<string, unknown>) => {
        if (typeof slug !== 'string') return null;
        const posts = world.posts.filter((post) => post.tags.some((tag) => tag.slug === slug));
        const known = ['javascript', 'webdev', 'typescript'].includes(slug) || posts.length > 0;
        return known ? { id: slug, slug, name: slug, followersCount: 10, postsCount: posts.length } : null;
      },
    },
    mutation: {
      publishPost: ({ input }: Record<string, unknown>) =>
        (viewer === null ? unauthenticated() : publishPost(viewer, input)),
      removePost: ({ input }: Record<string, unknown>) =>
        (viewer === null ? unauthenticated() : removePost(viewer, input)),
    },
  });
}
