import { z } from 'zod';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, unreadable, type DevtoApi } from './devto-api.ts';

/** One item of GET /api/articles/me/...: the key owner's own articles, with their counters. */
export const ownArticle = z.object({
  id: z.number().int(),
  title: z.string(),
  url: z.string(),
  published: z.boolean(),
  published_at: z.string().nullable(),
  body_markdown: z.string().nullable().optional(),
  page_views_count: z.number().int().default(0),
  public_reactions_count: z.number().int().default(0),
  comments_count: z.number().int().default(0),
  organization: z.object({ username: z.string(), name: z.string().optional() }).optional(),
});
export type OwnArticle = z.infer<typeof ownArticle>;

/** Forem's largest page is 1000; 100 keeps an answer with full bodies small. */
const pageSize = 100;
/** How deep a search goes before SPS says it cannot tell. */
const maxPages = 10;

/**
 * Pages of the key owner's articles, drafts and published alike (`/me/all`), in Forem's order:
 * drafts first (no published_at), then published newest first. `visit` answers true to stop.
 */
export async function eachOwnArticlePage(
  api: DevtoApi,
  channel: ChannelCredentials,
  visit: (articles: OwnArticle[]) => boolean,
): Promise<'done' | 'exhausted' | 'too-deep'> {
  for (let page = 1; page <= maxPages; page += 1) {
    const answer = z.array(ownArticle).safeParse(await api(channel, {
      method: 'GET', path: '/articles/me/all', query: { per_page: String(pageSize), page: String(page) },
    }));
    if (!answer.success) throw unreadable('with a list of articles', answer.error);
    if (visit(answer.data)) return 'done';
    if (answer.data.length < pageSize) return 'exhausted';
  }
  return 'too-deep';
}

export interface SentArticle {
  title: string;
  body: string;
  published: boolean;
}

/**
 * The article an unanswered `POST /api/articles` made: same title and the body as sent (Forem
 * keeps `body_markdown` as it was given), published since `from`; a draft has no date to tell,
 * so a draft with the same title and text counts, being the same article anyway.
 * Published articles come newest first after the drafts, so the search stops at the first one
 * older than `from`; a list deeper than SPS reads leaves the part unconfirmed rather than risk
 * a second article.
 */
export async function findSentArticle(
  api: DevtoApi,
  channel: ChannelCredentials,
  sent: SentArticle,
  from: number,
): Promise<OwnArticle | null> {
  const candidates: OwnArticle[] = [];
  const outcome = await eachOwnArticlePage(api, channel, (articles) => {
    for (const article of articles) {
      const at = article.published_at === null ? null : Date.parse(article.published_at);
      if (at !== null && at < from) return true;
      const same = article.title === sent.title && article.body_markdown === sent.body;
      if (same && article.published === sent.published) candidates.push(article);
    }
    return false;
  });
  if (outcome === 'too-deep' && candidates.length === 0) {
    const message = 'dev.to may have made the article before its answer was lost, and the account has more '
      + 'drafts than SPS reads to find it: check the dashboard before publishing again';
    throw new PlatformError({ kind: 'unconfirmed', provider, message });
  }
  return candidates[0] ?? null;
}
