import { z } from 'zod';
import type { ChannelCredentials, ToolHandler } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, type WordpressRest, type WordpressSession } from './wordpress-rest.ts';
import { ensureTag, listTerms, unreadable } from './wordpress-terms.ts';

/**
 * The tools the definition lists (design-blogging-business.md 6.8): post types for post_type,
 * categories and tags for the settings (the tags tool also creates the tags a post will use),
 * and the statuses the site offers.
 */

const postTypes = z.record(z.string(), z.object({ name: z.string(), slug: z.string(), rest_base: z.string() }));
const statuses = z.record(z.string(), z.object({ name: z.string(), slug: z.string() }));

/** Types no post is written as: media, menus, and the block editor's own (wp_block, wp_template...). */
const notForPosts = (slug: string): boolean => slug === 'attachment' || /^(wp|nav)_/.test(slug);

const noInput = z.object({});
const tagsInput = z.object({
  names: z.string().trim().max(2000).optional()
    .describe('Comma-separated tag names: answers their ids, creating the tags the site lacks'),
});

function parseInput<T>(tool: string, schema: z.ZodType<T>, data: Record<string, unknown>): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'data'}: ${issue.message}`);
  throw new PlatformError({ kind: 'permanent', provider, message: `${tool}: ${problems.join('; ')}` });
}

export function wordpressTools(
  rest: WordpressRest,
  sessionOf: (channel: ChannelCredentials) => WordpressSession,
): Record<string, ToolHandler> {
  const get = (channel: ChannelCredentials, route: string, query: Record<string, string> = {}) =>
    rest.call(sessionOf(channel), { method: 'GET', route, query });

  return {
    async postTypes(channel, data) {
      parseInput('postTypes', noInput, data);
      const answer = postTypes.safeParse(await get(channel, '/wp/v2/types'));
      if (!answer.success) throw unreadable('post types');
      return Object.values(answer.data)
        .filter((type) => !notForPosts(type.slug))
        .map((type) => ({ type: type.slug, name: type.name, restBase: type.rest_base }));
    },

    async categories(channel, data) {
      parseInput('categories', noInput, data);
      const categories = await listTerms(rest, sessionOf(channel), 'categories');
      return categories.map(({ id, name, slug, parent, count }) => ({ id, name, slug, parent, count }));
    },

    async tags(channel, data) {
      const { names } = parseInput('tags', tagsInput, data);
      const session = sessionOf(channel);
      const wanted = (names ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
      if (wanted.length === 0) {
        const tags = await listTerms(rest, session, 'tags');
        return tags.map(({ id, name, slug, count }) => ({ id, name, slug, count }));
      }
      const tags = [];
      for (const name of wanted) tags.push(await ensureTag(rest, session, name));
      return tags.map(({ id, name }) => ({ id, name }));
    },

    async statuses(channel, data) {
      parseInput('statuses', noInput, data);
      const answer = statuses.safeParse(await get(channel, '/wp/v2/statuses'));
      if (!answer.success) throw unreadable('post statuses');
      return Object.values(answer.data).map(({ slug, name }) => ({ status: slug, name }));
    },
  };
}
