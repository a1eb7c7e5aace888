import type { SchemaTypes } from './graphql-lite.ts';

/**
 * The part of Hashnode's schema (gql-skill `schema.graphql`, the gql-beta schema) the simulator
 * answers: the types SPS reads and the publishPost mutation. Field names and types are Hashnode's.
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

/** The fields PublishPostInput declares; anything else is refused as BAD_USER_INPUT. */
export const publishPostInputFields: ReadonlySet<string> = new Set([
  'publicationId', 'title', 'subtitle', 'contentMarkdown', 'publishedAt', 'coverImage', 'slug', 'originalArticleURL',
  'tags', 'disableComments', 'isDelisted', 'enableToc', 'metaTitle', 'metaDescription', 'ogImage', 'seriesId',
  'publishAs', 'coAuthors',
]);
