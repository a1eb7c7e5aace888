import { z } from 'zod';
import { withMarkdownImages } from '../kit/content-format.ts';
import type {
  AdapterOptions, AnalyticsCounter, ChannelCredentials, PlatformAdapter, PublishInput, PublishResult,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { parseInput } from '../kit/parse-input.ts';
import { sendOnce } from '../kit/send-once.ts';
import { devtoSettings } from './definition.ts';
import { devtoApi, provider, unreadable, type DevtoApi } from './devto-api.ts';
import { eachOwnArticlePage, findSentArticle, type OwnArticle } from './devto-own-articles.ts';
import { devtoTools } from './devto-tools.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';

/** The `show` representation POST /api/articles answers with (201). */
const createdArticle = z.object({ id: z.number().int(), url: z.string() });
const publishedList = z.array(z.object({ id: z.number().int(), url: z.string() }));

/**
 * The article's fields (design-blogging-business.md 4.2). Forem takes images by address only:
 * the first attached image is the cover (`main_image`) unless the settings name one; the others
 * follow the text as Markdown images. POST /posts has checked dev.to can fetch them
 * (`mediaByUrl`, media-reach.ts).
 */
function articleOf(input: PublishInput): { article: Record<string, unknown>; title: string; body: string } {
  const settings = parseInput(provider, 'Dev.to settings', devtoSettings, input.settings);
  if (input.media.some((item) => item.kind !== 'image')) {
    throw new PlatformError({ kind: 'permanent', provider, message: 'Dev.to articles take images only' });
  }
  const images = input.media.map(({ url, alt }) => ({ url, alt }));
  const cover = settings.main_image ?? images.shift()?.url;
  const body = withMarkdownImages(input.content, images);
  const article = {
    title: settings.title,
    body_markdown: body,
    // Forem keeps an article as a draft unless told; SPS publishes unless the settings say draft.
    published: settings.published ?? true,
    ...(settings.tags === undefined ? {} : { tags: settings.tags }),
    ...(settings.series === undefined ? {} : { series: settings.series }),
    ...(cover === undefined ? {} : { main_image: cover }),
    ...(settings.canonical_url === undefined ? {} : { canonical_url: settings.canonical_url }),
    ...(settings.description === undefined ? {} : { description: settings.description }),
    ...(settings.organization_id === undefined ? {} : { organization_id: settings.organization_id }),
  };
  return { article, title: settings.title, body };
}

async function ownArticle(api: DevtoApi, channel: ChannelCredentials, id: number): Promise<OwnArticle> {
  let found: OwnArticle | undefined;
  await eachOwnArticlePage(api, channel, (articles) => {
    found = articles.find((article) => article.id === id);
    return found !== undefined;
  });
  if (found === undefined) {
    const message = `article ${String(id)} is not among the dev.to account's articles`;
    throw new PlatformError({ kind: 'permanent', provider, message });
  }
  return found;
}

const counters = (article: OwnArticle): AnalyticsCounter[] => [
  { label: 'Page views', value: article.page_views_count },
  { label: 'Reactions', value: article.public_reactions_count },
  { label: 'Comments', value: article.comments_count },
];

/**
 * Publishes Markdown articles to dev.to or another Forem site (design-blogging-business.md,
 * section 4) with the user's API key: one `POST /api/articles` per post, the text as written
 * (`normalizeMarkdown`), draft or published per the settings. Forem takes no idempotency key, so
 * a retried part never posts twice this way: the attempt checkpoints a send mark first, and an
 * attempt that finds it looks for the article among the account's own (`/api/articles/me/all`)
 * before sending again (kit/send-once.ts). Comments cannot be written through the API, so the
 * definition's `replies` is 'none' and later parts are refused at POST /posts.
 */
export function createDevtoAdapter(options: AdapterOptions, app: Pick<PlatformApp, 'apiUrl'>): PlatformAdapter {
  const api = devtoApi(app.apiUrl, options.timeoutMs);

  async function publish(input: PublishInput): Promise<PublishResult> {
    const { article, title, body } = articleOf(input);
    const made = await sendOnce({
      checkpoint: input.checkpoint,
      now: Date.now,
      find: async (from) => {
        const sent = { title, body, published: article.published === true };
        return findSentArticle(api, input.channel, sent, from);
      },
      send: async () => {
        const call = { method: 'POST', path: '/articles', json: { article } } as const;
        const answer = createdArticle.safeParse(await api(input.channel, call));
        if (answer.success) return answer.data;
        // Forem made the article if it answered 201: sending again would make a second one.
        const message = 'dev.to accepted the article but answered without an id SPS could read';
        throw new PlatformError({ kind: 'unconfirmed', provider, message, cause: answer.error });
      },
    });
    return { releaseId: String(made.id), releaseURL: made.url };
  }

  return {
    provider,
    publish,

    comment() {
      const message = 'dev.to takes no comments through its API; a post to Dev.to has one part';
      return Promise.reject(new PlatformError({ kind: 'permanent', provider, message }));
    },

    /**
     * dev.to has no delete for its users: PUT /api/articles/:id with `published: false` takes the
     * article off the site, back to the author's drafts. Forem's 404 means it is gone already.
     */
    async remove(channel, { releaseId }) {
      if (!/^\d+$/.test(releaseId)) {
        throw new PlatformError({ kind: 'permanent', provider, message: `${releaseId} is not a dev.to article id` });
      }
      const call = { method: 'PUT', path: `/articles/${releaseId}`, json: { article: { published: false } } } as const;
      await removedEvenIfGone(() => api(channel, call));
    },

    async recentContent(channel) {
      const query = { per_page: '20' };
      const call = { method: 'GET', path: '/articles/me/published', query } as const;
      const answer = publishedList.safeParse(await api(channel, call));
      if (!answer.success) throw unreadable('with a list of articles', answer.error);
      return answer.data.map(({ id, url }) => ({ id: String(id), url }));
    },

    tools: devtoTools(api),

    analytics: {
      /** Forem has no account totals in v1's documented routes: the sums over the user's own articles. */
      async account(channel) {
        const totals = { articles: 0, views: 0, reactions: 0, comments: 0 };
        await eachOwnArticlePage(api, channel, (articles) => {
          for (const article of articles.filter((item) => item.published)) {
            totals.articles += 1;
            totals.views += article.page_views_count;
            totals.reactions += article.public_reactions_count;
            totals.comments += article.comments_count;
          }
          return false;
        });
        return [
          { label: 'Articles', value: totals.articles },
          { label: 'Page views', value: totals.views },
          { label: 'Reactions', value: totals.reactions },
          { label: 'Comments', value: totals.comments },
        ];
      },

      async post(channel, releaseId) {
        if (!/^\d+$/.test(releaseId)) {
          throw new PlatformError({ kind: 'permanent', provider, message: `${releaseId} is not a dev.to article id` });
        }
        return counters(await ownArticle(api, channel, Number(releaseId)));
      },
    },
  };
}
