import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { readWordpressError } from './wordpress-errors.ts';
import { provider, type WordpressRest, type WordpressSession } from './wordpress-rest.ts';

/**
 * Categories and tags (design-blogging-business.md 6.8): posts take them as term ids, users
 * know them by name. Names are found among the site's terms; a missing tag is created (any
 * author may create tags), a missing category is refused (only editors manage categories).
 */

export type Taxonomy = 'categories' | 'tags';

const term = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  count: z.number().int().optional(),
  parent: z.number().int().optional(),
});
const terms = z.array(term);

export type Term = z.infer<typeof term>;

/** WordPress's largest page; sites with more terms than `maxPages` pages list the first ones. */
const perPage = 100;
const maxPages = 10;

export function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `WordPress answered with ${what}`);
}

async function page(
  rest: WordpressRest,
  session: WordpressSession,
  taxonomy: Taxonomy,
  query: Record<string, string>,
): Promise<{ items: Term[]; total: number | null }> {
  const answer = await rest.callWithTotal(session, {
    method: 'GET',
    route: `/wp/v2/${taxonomy}`,
    query: { per_page: String(perPage), orderby: 'name', _fields: 'id,name,slug,count,parent', ...query },
  });
  const parsed = terms.safeParse(answer.body);
  if (!parsed.success) throw unreadable(`a list of ${taxonomy}`);
  return { items: parsed.data, total: answer.total };
}

/** Every term of the taxonomy, page by page as X-WP-Total tells, up to `maxPages` pages. */
export async function listTerms(rest: WordpressRest, session: WordpressSession, taxonomy: Taxonomy): Promise<Term[]> {
  const all: Term[] = [];
  for (let number = 1; number <= maxPages; number += 1) {
    const { items, total } = await page(rest, session, taxonomy, { page: String(number) });
    all.push(...items);
    if (items.length < perPage || total === null || all.length >= total) break;
  }
  return all;
}

const sameName = (a: string, b: string): boolean => a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;

/** The term whose name is `name` (case aside), found by the site's own search. */
async function findByName(
  rest: WordpressRest,
  session: WordpressSession,
  taxonomy: Taxonomy,
  name: string,
): Promise<Term | null> {
  const { items } = await page(rest, session, taxonomy, { search: name });
  return items.find((item) => sameName(item.name, name)) ?? null;
}

const createdTerm = z.object({ id: z.number().int() });

/**
 * The tag's id, creating it when the site has none by that name. WordPress refuses a second
 * tag of the same name with `term_exists` and the existing id, so two calls at once (or a
 * retry after a lost answer) still end with one tag.
 */
export async function ensureTag(rest: WordpressRest, session: WordpressSession, name: string): Promise<Term> {
  const found = await findByName(rest, session, 'tags', name);
  if (found !== null) return found;
  try {
    const answer = createdTerm.safeParse(await rest.call(session, {
      method: 'POST', route: '/wp/v2/tags', json: { name },
    }));
    if (!answer.success) throw unreadable('a created tag');
    return { id: answer.data.id, name, slug: '' };
  } catch (error) {
    const existing = error instanceof PlatformError ? readWordpressError(error.body) : null;
    const termId = existing?.code === 'term_exists' ? existing.data?.term_id : undefined;
    if (termId === undefined) throw error;
    return { id: termId, name, slug: '' };
  }
}

/** Term ids for the settings' references: ids as given, names looked up (tags created when missing). */
export async function resolveTerms(
  rest: WordpressRest,
  session: WordpressSession,
  taxonomy: Taxonomy,
  references: readonly (number | string)[],
): Promise<number[]> {
  const ids: number[] = [];
  for (const reference of references) {
    if (typeof reference === 'number') {
      ids.push(reference);
      continue;
    }
    const found = taxonomy === 'tags'
      ? await ensureTag(rest, session, reference)
      : await findByName(rest, session, taxonomy, reference);
    if (found === null) {
      const message = `WordPress has no category named "${reference}"; pick one from the categories tool `
        + '(an editor creates categories in wp-admin)';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    ids.push(found.id);
  }
  return [...new Set(ids)];
}
