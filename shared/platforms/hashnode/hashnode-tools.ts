import { z } from 'zod';
import type { ChannelCredentials, ToolHandler } from '../kit/platform-adapter.ts';
import { parseInput } from '../kit/parse-input.ts';
import { provider, unreadable, type HashnodeApi } from './hashnode-graphql.ts';

const objectId = z.string().regex(/^[0-9a-fA-F]{24}$/, 'must be a 24-character hex id');

const publicationsQuery = `query MyPublications {
  me { publications(first: 50) { edges { node { id title url isTeam } } } }
}`;
const tagQuery = 'query Tag($slug: String!) { tag(slug: $slug) { id name slug followersCount postsCount } }';
const seriesQuery = `query Series($id: ObjectId!) {
  publication(id: $id) { seriesList(first: 50) { edges { node { id name slug } } } }
}`;

const edges = <T extends z.ZodType>(node: T) => z.object({ edges: z.array(z.object({ node })) });
const publications = z.object({
  me: z.object({
    publications: edges(z.object({
      id: z.string(), title: z.string(), url: z.string().nullable(), isTeam: z.boolean(),
    })),
  }),
});
const tag = z.object({
  tag: z.object({
    id: z.string(), name: z.string(), slug: z.string(), followersCount: z.number(), postsCount: z.number(),
  }).nullable(),
});
const series = z.object({
  publication: z.object({
    seriesList: edges(z.object({ id: z.string(), name: z.string(), slug: z.string() })),
  }).nullable(),
});

/** The tools the definition lists (design-blogging-business.md 5.8), each answering the ids settings take. */
export function hashnodeTools(api: HashnodeApi): Record<string, ToolHandler> {
  return {
    async publications(channel: ChannelCredentials) {
      const answer = publications.safeParse((await api(channel.accessToken, publicationsQuery)).data);
      if (!answer.success) throw unreadable('publications', answer.error);
      return answer.data.me.publications.edges.map(({ node }) => node);
    },

    async tags(channel: ChannelCredentials, data) {
      const { slug } = parseInput(provider, 'tags tool', z.object({ slug: z.string().trim().min(1) }), data);
      const answer = tag.safeParse((await api(channel.accessToken, tagQuery, { slug })).data);
      if (!answer.success) throw unreadable('a tag', answer.error);
      // An unknown slug is no error: publishing with it creates the tag.
      return answer.data.tag === null ? [] : [answer.data.tag];
    },

    async series(channel: ChannelCredentials, data) {
      const { publicationId } = parseInput(provider, 'series tool', z.object({ publicationId: objectId }), data);
      const answer = series.safeParse((await api(channel.accessToken, seriesQuery, { id: publicationId })).data);
      if (!answer.success) throw unreadable('series', answer.error);
      return answer.data.publication?.seriesList.edges.map(({ node }) => node) ?? [];
    },
  };
}
