import { z } from 'zod';
import { markdownToHtml } from '../kit/content-format.ts';
import type {
  AdapterOptions, AnalyticsCounter, ChannelCredentials, PlatformAdapter, PublishInput, PublishResult, RemovalTarget,
} from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { readWordpressCredential } from './credential.ts';
import { wordpressSettings } from './definition.ts';
import { canonicalMetaKey } from './wordpress-canonical.ts';
import { mediaAfterText, uploadPartMedia, type LibraryMedia } from './wordpress-media.ts';
import { provider, wordpressRest, type WordpressSession } from './wordpress-rest.ts';
import { draftOnce } from './wordpress-send-once.ts';
import { resolveTerms, unreadable } from './wordpress-terms.ts';
import { wordpressTools } from './wordpress-tools.ts';
import { readWordpressError } from './wordpress-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

type Settings = z.output<typeof wordpressSettings>;

const published = z.object({ id: z.number().int(), link: z.string(), status: z.string() });
const entryLinks = z.array(z.object({ id: z.number().int(), link: z.string() }));

function sessionOf(channel: ChannelCredentials): WordpressSession {
  if (channel.instanceUrl === null) {
    const message = 'the channel has no WordPress site address; connect the site again';
    throw new PlatformError({ kind: 'disconnected', provider, message });
  }
  const site = channel.instanceUrl.replace(trailingSlashes, '');
  return { site, credential: readWordpressCredential(channel.accessToken) };
}

function settingsOf(input: PublishInput): Settings {
  const parsed = wordpressSettings.safeParse(input.settings);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  throw new PlatformError({ kind: 'permanent', provider, message: `WordPress settings: ${problems}` });
}

/**
 * The entry's HTML: the Markdown text and the images after it converted by the kit's converter
 * and sanitizer, then videos as WordPress's [video] shortcode.
 */
function contentHtml(text: string, shown: readonly LibraryMedia[]): string {
  const { markdown, shortcodes } = mediaAfterText(shown);
  const html = markdownToHtml([text.trim(), markdown].filter((piece) => piece !== '').join('\n\n'));
  return [html, shortcodes].filter((piece) => piece !== '').join('\n\n');
}

/** The REST base the entry was published under (post_type; `posts` unless the settings chose another). */
function removalTypeOf(settings: Record<string, unknown>): string {
  const parsed = wordpressSettings.safeParse(settings);
  if (!parsed.success) {
    throw new PlatformError({ kind: 'permanent', provider, message: 'the post\'s WordPress settings no longer parse' });
  }
  return parsed.data.post_type;
}

function releaseId(id: string): number {
  if (!/^\d+$/.test(id)) {
    throw new PlatformError({ kind: 'permanent', provider, message: `${id} is not a WordPress post id` });
  }
  return Number(id);
}

/**
 * Publishes to a self-hosted WordPress through its REST API (design-blogging-business.md,
 * section 6), signed in as the connected user with an application password (HTTP Basic).
 * One post part becomes one entry of the chosen post type (posts, pages, or a custom type's
 * REST base): the Markdown text as HTML, excerpt, slug, categories and tags (tags named but
 * missing are created), the first image as the featured image and other media in the text,
 * all uploaded to the site's media library first, and the canonical link when the site
 * exposes an SEO plugin's field for it. Exactly once: a draft checkpointed by id, then
 * published by an update (wordpress-send-once.ts).
 */
export function createWordpressAdapter(options: AdapterOptions): PlatformAdapter {
  const rest = wordpressRest({ timeoutMs: options.timeoutMs, userHosts: options.userHosts });

  async function entryFields(input: PublishInput, session: WordpressSession, settings: Settings) {
    // Checked first: a site without the field refuses the part before anything is uploaded.
    const canonicalKey = settings.canonical_url === undefined
      ? undefined
      : await canonicalMetaKey(rest, session, settings.post_type);
    const categories = await resolveTerms(rest, session, 'categories', settings.categories ?? []);
    const tags = await resolveTerms(rest, session, 'tags', settings.tags ?? []);
    const library = await uploadPartMedia(rest, session, input.media, input.checkpoint, options.timeoutMs);
    const featured = library.find(({ media }) => media.kind === 'image');
    const shown = library.filter((item) => item !== featured);
    return {
      title: settings.title,
      content: contentHtml(input.content, shown),
      ...(settings.excerpt === undefined ? {} : { excerpt: settings.excerpt }),
      ...(settings.slug === undefined ? {} : { slug: settings.slug }),
      ...(categories.length === 0 ? {} : { categories }),
      ...(tags.length === 0 ? {} : { tags }),
      ...(featured === undefined ? {} : { featured_media: featured.id }),
      ...(settings.comment_status === undefined ? {} : { comment_status: settings.comment_status }),
      ...(settings.format === undefined ? {} : { format: settings.format }),
      ...(settings.sticky === undefined ? {} : { sticky: settings.sticky }),
      ...(settings.password === undefined ? {} : { password: settings.password }),
      ...(canonicalKey === undefined ? {} : { meta: { [canonicalKey]: settings.canonical_url } }),
    };
  }

  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = settingsOf(input);
    const session = sessionOf(input.channel);
    const restBase = settings.post_type;
    const id = await draftOnce({
      rest,
      session,
      restBase,
      fields: await entryFields(input, session, settings),
      checkpoint: input.checkpoint,
      now: Date.now,
    });
    const status = settings.status ?? 'publish';
    // A draft stays one; any other status is an update of the known id, the same on every attempt.
    const route = `/wp/v2/${restBase}/${String(id)}`;
    const answer = published.safeParse(status === 'draft'
      ? await rest.call(session, { method: 'GET', route, query: { context: 'edit' } })
      : await rest.call(session, { method: 'POST', route, json: { status } }));
    if (!answer.success) throw unreadable('the published entry');
    return { releaseId: String(answer.data.id), releaseURL: answer.data.link };
  }

  /**
   * DELETE /wp/v2/<post type>/<id> without `force`: the entry goes to the site's trash, where an
   * editor can restore it (30 days unless the site says otherwise), rather than being destroyed
   * at once. WordPress's own answers for an entry already gone count as removed: 410
   * rest_already_trashed, 404 rest_post_invalid_id. A type that cannot be trashed is refused.
   */
  async function remove(channel: ChannelCredentials, item: RemovalTarget): Promise<void> {
    const route = `/wp/v2/${removalTypeOf(item.settings)}/${String(releaseId(item.releaseId))}`;
    try {
      await rest.call(sessionOf(channel), { method: 'DELETE', route });
    } catch (error) {
      const code = error instanceof PlatformError ? readWordpressError(error.body)?.code : undefined;
      if (code === 'rest_already_trashed' || code === 'rest_post_invalid_id') return;
      if (code === 'rest_trash_not_supported') {
        const message = 'this site does not keep a trash for the entry\'s type; SPS does not delete it for good';
        throw new PlatformError({ kind: 'permanent', provider, message, httpStatus: 501, cause: error });
      }
      throw error;
    }
  }

  async function count(channel: ChannelCredentials, route: string, query: Record<string, string>): Promise<number> {
    const answer = await rest.callWithTotal(sessionOf(channel), {
      method: 'GET', route, query: { per_page: '1', _fields: 'id', ...query },
    });
    if (answer.total === null) throw unreadable('a list without its X-WP-Total count');
    return answer.total;
  }

  async function myId(channel: ChannelCredentials): Promise<string> {
    const me = z.object({ id: z.number().int() }).safeParse(await rest.call(sessionOf(channel), {
      method: 'GET', route: '/wp/v2/users/me', query: { _fields: 'id' },
    }));
    if (!me.success) throw unreadable('the signed-in user');
    return String(me.data.id);
  }

  return {
    provider,
    publish,

    comment(): Promise<PublishResult> {
      const message = 'a WordPress post is one entry: SPS publishes no later parts to it';
      return Promise.reject(new PlatformError({ kind: 'permanent', provider, message }));
    },

    async recentContent(channel) {
      const answer = entryLinks.safeParse(await rest.call(sessionOf(channel), {
        method: 'GET',
        route: '/wp/v2/posts',
        query: { author: await myId(channel), per_page: '20', _fields: 'id,link' },
      }));
      if (!answer.success) throw unreadable('the user\'s posts');
      return answer.data.map(({ id, link }) => ({ id: String(id), url: link }));
    },

    remove,

    tools: wordpressTools(rest, sessionOf),

    // Core keeps no views; what it counts cheaply is published posts and approved comments.
    analytics: {
      async account(channel): Promise<AnalyticsCounter[]> {
        return [{ label: 'Posts', value: await count(channel, '/wp/v2/posts', { author: await myId(channel) }) }];
      },
      async post(channel, id): Promise<AnalyticsCounter[]> {
        const comments = await count(channel, '/wp/v2/comments', { post: String(releaseId(id)) });
        return [{ label: 'Comments', value: comments }];
      },
    },
  };
}
