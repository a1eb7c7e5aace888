import type { InputTypes, SchemaArguments, SchemaTypes } from './graphql-lite.ts';

/**
 * The part of Hashnode's schema the simulator answers: the types SPS reads and the publishPost
 * mutation. Field names and types are Hashnode's, from the schema production serves: the one
 * Hashnode's gql-skill (`references/schema.graphql`) publishes for https://gql-beta.hashnode.com,
 * which it names production. gql.hashnode.com, whose older schema Hashnode's starter kit carries
 * (User.posts by page and pageSize, PublishPostInput with coverImageOptions and settings), has
 * answered with a redirect to Hashnode's announcement since the API became a Pro feature on
 * 2026-05-13; the simulator refuses that schema's shapes as the gql-beta schema does.
 */
export const scalars: ReadonlySet<string> = new Set([
  'ID', 'String', 'Int', 'Boolean', 'DateTime', 'ObjectId', 'JSONObject',
]);

const connection = (node: string): Record<string, string> => ({ edges: `${node}Edge`, pageInfo: 'PageInfo' });
const edge = (node: string): Record<string, string> => ({ node, cursor: 'String' });

export const hashnodeTypes: SchemaTypes = {
  Query: { me: 'MyUser', post: 'Post', publication: 'Publication', user: 'User', tag: 'Tag' },
  Mutation: { publishPost: 'PublishPostPayload' },
  PublishPostPayload: { post: 'Post' },
  MyUser: {
    id: 'ID', username: 'String', name: 'String', email: 'String', profilePicture: 'String', coverImage: 'String',
    tagline: 'String', location: 'String', availableFor: 'String', dateJoined: 'DateTime',
    publications: 'PublicationConnection', followers: 'UserConnection', follows: 'UserConnection',
  },
  User: {
    id: 'ID', username: 'String', name: 'String', profilePicture: 'String', coverImage: 'String', tagline: 'String',
    location: 'String', deactivated: 'Boolean', dateJoined: 'DateTime', followersCount: 'Int', followingsCount: 'Int',
    posts: 'PostConnection', publications: 'PublicationConnection',
  },
  Publication: {
    id: 'ID', title: 'String', displayTitle: 'String', url: 'String', canonicalURL: 'String', isTeam: 'Boolean',
    followersCount: 'Int', author: 'User', post: 'Post', posts: 'PostConnection', seriesList: 'SeriesConnection',
  },
  Post: {
    id: 'ID', cuid: 'String', title: 'String', subtitle: 'String', slug: 'String', url: 'String', content: 'Content',
    brief: 'String', coverImage: 'CoverImage', author: 'User', publication: 'Publication', tags: 'Tag',
    reactionCount: 'Int', responseCount: 'Int', replyCount: 'Int', readTimeInMinutes: 'Int', views: 'Int',
    publishedAt: 'DateTime', updatedAt: 'DateTime', canonicalUrl: 'String', series: 'Series',
  },
  Content: { markdown: 'String', html: 'String', text: 'String' },
  CoverImage: { url: 'String', attribution: 'String', photographer: 'String', isPortrait: 'Boolean' },
  Tag: {
    id: 'ID', name: 'String', slug: 'String', logo: 'String', tagline: 'String', followersCount: 'Int',
    postsCount: 'Int',
  },
  Series: { id: 'ID', name: 'String', slug: 'String', cuid: 'String', coverImage: 'String' },
  PageInfo: { endCursor: 'String', hasNextPage: 'Boolean', totalDocuments: 'Int' },
  PostConnection: { ...connection('Post'), totalDocuments: 'Int' },
  PostEdge: edge('Post'),
  PublicationConnection: connection('Publication'),
  PublicationEdge: edge('Publication'),
  SeriesConnection: connection('Series'),
  SeriesEdge: edge('Series'),
  UserConnection: connection('User'),
  UserEdge: edge('User'),
};

const page = { first: 'Int!', after: 'String' };

/** The arguments of the fields above that take any; every other field takes none. */
export const hashnodeArguments: SchemaArguments = {
  Query: {
    post: { id: 'ID!' }, publication: { id: 'ObjectId', host: 'String' }, user: { username: 'String!' },
    tag: { slug: 'String!' },
  },
  Mutation: { publishPost: { input: 'PublishPostInput!' } },
  MyUser: { publications: page, followers: page, follows: page },
  User: { posts: page, publications: page },
  Publication: {
    post: { slug: 'String!' }, posts: { ...page, filter: 'PublicationPostConnectionFilter' }, seriesList: page,
  },
};

/** The input types SPS sends; a field they do not declare is refused as BAD_USER_INPUT. */
export const hashnodeInputTypes: InputTypes = {
  PublishPostInput: {
    publicationId: 'ObjectId!', title: 'String!', subtitle: 'String', contentMarkdown: 'String!', coverImage: 'String',
    slug: 'String', tags: '[PublishPostTagInput!]', originalArticleURL: 'String', metaTitle: 'String',
    metaDescription: 'String', ogImage: 'String', disableComments: 'Boolean', isDelisted: 'Boolean',
    enableToc: 'Boolean', publishAs: 'ObjectId', coAuthors: '[ObjectId!]', seriesId: 'ObjectId',
    publishedAt: 'DateTime',
  },
  PublishPostTagInput: { slug: 'String!', name: 'String' },
  PublicationPostConnectionFilter: { tagSlugs: '[String!]' },
};
