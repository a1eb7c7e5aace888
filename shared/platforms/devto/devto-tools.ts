import { z } from 'zod';
import type { ChannelCredentials, ToolHandler } from '../kit/platform-adapter.ts';
import { parseInput } from '../kit/parse-input.ts';
import { provider, unreadable, type DevtoApi } from './devto-api.ts';
import { eachOwnArticlePage } from './devto-own-articles.ts';

const tagsData = z.object({ page: z.coerce.number().int().min(1).max(1000).optional() });
const tags = z.array(z.object({ id: z.number().int(), name: z.string() }));
const organization = z.object({ id: z.number().int(), username: z.string(), name: z.string() });

/**
 * The tools the definition lists (design-blogging-business.md 4.8). Forem has no "my
 * organizations" call: the organizations are the ones the user's own articles were published
 * under, each read once for the id `organization_id` takes.
 */
export function devtoTools(api: DevtoApi): Record<string, ToolHandler> {
  return {
    async tags(channel: ChannelCredentials, data) {
      const { page } = parseInput(provider, 'tags tool', tagsData, data);
      const query = { per_page: '100', page: String(page ?? 1) };
      const answer = tags.safeParse(await api(channel, { method: 'GET', path: '/tags', query }));
      if (!answer.success) throw unreadable('with tags', answer.error);
      return answer.data.map(({ id, name }) => ({ id, name }));
    },

    async organizations(channel: ChannelCredentials) {
      const usernames = new Set<string>();
      await eachOwnArticlePage(api, channel, (articles) => {
        for (const { organization: org } of articles) if (org !== undefined) usernames.add(org.username);
        return false;
      });
      const found = [];
      for (const username of usernames) {
        const path = `/organizations/${encodeURIComponent(username)}`;
        const answer = organization.safeParse(await api(channel, { method: 'GET', path }));
        if (!answer.success) throw unreadable('with an organization', answer.error);
        found.push(answer.data);
      }
      return found;
    },
  };
}
