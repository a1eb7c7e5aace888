import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * Forem's articles as the API sees them: `POST /api/articles` validated the way the Article model
 * validates (title 1-128 characters, at most 4 alphanumeric tags of at most 30 characters, a
 * canonical URL unique on the site, URLs for the images), refusals as 422 `{error: <sentence>,
 * status: 422}` with Rails' messages joined by ", "; `GET /api/articles/me[/all|/published|
 * /unpublished]` newest first (published_at descending, drafts first, then creation) with the
 * ME attributes, counters included. Facts: design-blogging-business.md, section 4.
 */

export const siteOrigin = 'https://dev.to';

export interface SimulatedOrganization {
  id: number;
  username: string;
  name: string;
}

export interface SimulatedArticle {
  id: number;
  userId: number;
  username: string;
  title: string;
  bodyMarkdown: string;
  published: boolean;
  publishedAt: string | null;
  tags: string[];
  series: string | null;
  mainImage: string | null;
  canonicalUrl: string | null;
  description: string;
  organization: SimulatedOrganization | null;
  slug: string;
  pageViews: number;
  reactions: number;
  comments: number;
}

export function articleUrl(article: SimulatedArticle): string {
  return `${siteOrigin}/${article.username}/${article.slug}`;
}

const isUrl = (value: unknown): value is string => typeof value === 'string' && /^https?:\/\/\S+$/.test(value);

/** The Article model's validation messages for what was sent, empty when it saves. */
export function articleProblems(fields: Record<string, unknown>, others: readonly SimulatedArticle[]): string[] {
  const problems: string[] = [];
  const title = typeof fields.title === 'string' ? fields.title.trim() : '';
  if (title === '') problems.push('Title can\'t be blank');
  if (title.length > 128) problems.push('Title is too long (maximum is 128 characters)');
  // Forem's controller permits `tags: []` only: a comma-separated string, as its OpenAPI file
  // types the field, is dropped by Rails' strong parameters and the article saves untagged.
  const tags = Array.isArray(fields.tags) ? fields.tags : [];
  if (tags.length > 4) problems.push('Tag list exceed the maximum of 4 tags');
  for (const tag of tags) {
    const name = String(tag);
    if (!/^[a-zA-Z0-9]+$/.test(name)) {
      problems.push(`Tag "${name}" contains non-alphanumeric or prohibited characters`);
    }
    if (name.length > 30) problems.push(`Tag "${name}" is too long (maximum is 30 characters)`);
  }
  if (fields.main_image !== undefined && fields.main_image !== null && !isUrl(fields.main_image)) {
    problems.push('Main image is not a valid URL');
  }
  const canonical = fields.canonical_url;
  if (canonical !== undefined && canonical !== null) {
    if (!isUrl(canonical)) problems.push('Canonical url is not a valid URL');
    else if (others.some((article) => article.canonicalUrl === canonical)) {
      problems.push('Canonical url has already been taken');
    }
  }
  return problems;
}

export function unprocessable(message: string): SimulatedAnswer {
  return { status: 422, body: { error: message, status: 422 } };
}

function slugOf(title: string, id: number): string {
  const words = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `${words}-${id.toString(36)}`;
}

export function newArticle(
  id: number,
  user: { id: number; username: string },
  fields: Record<string, unknown>,
  organization: SimulatedOrganization | null,
  now: Date,
): SimulatedArticle {
  const title = String(fields.title).trim();
  const published = fields.published === true;
  return {
    id,
    userId: user.id,
    username: organization?.username ?? user.username,
    title,
    bodyMarkdown: typeof fields.body_markdown === 'string' ? fields.body_markdown : '',
    published,
    publishedAt: published ? now.toISOString() : null,
    tags: Array.isArray(fields.tags) ? fields.tags.map(String).map((tag) => tag.toLowerCase()) : [],
    series: typeof fields.series === 'string' ? fields.series : null,
    mainImage: typeof fields.main_image === 'string' ? fields.main_image : null,
    canonicalUrl: typeof fields.canonical_url === 'string' ? fields.canonical_url : null,
    description: typeof fields.description === 'string' ? fields.description : '',
    organization,
    slug: slugOf(title, id),
    pageViews: 0,
    reactions: 0,
    comments: 0,
  };
}

/** The `show` representation answered by POST /api/articles. */
export function presentCreated(article: SimulatedArticle): Record<string, unknown> {
  return {
    type_of: 'article',
    id: article.id,
    title: article.title,
    description: article.description,
    slug: article.slug,
    path: `/${article.username}/${article.slug}`,
    url: articleUrl(article),
    canonical_url: article.canonicalUrl ?? articleUrl(article),
    published: article.published,
    published_at: article.publishedAt,
    tag_list: article.tags.join(', '),
    tags: article.tags,
    cover_image: article.mainImage,
    body_markdown: article.bodyMarkdown,
  };
}

/** One item of GET /api/articles/me*: the ME attributes. */
export function presentMine(article: SimulatedArticle): Record<string, unknown> {
  return {
    type_of: 'article',
    id: article.id,
    title: article.title,
    description: article.description,
    published: article.published,
    published_at: article.publishedAt,
    slug: article.slug,
    path: `/${article.username}/${article.slug}`,
    url: articleUrl(article),
    comments_count: article.comments,
    public_reactions_count: article.reactions,
    page_views_count: article.pageViews,
    body_markdown: article.bodyMarkdown,
    positive_reactions_count: article.reactions,
    cover_image: article.mainImage,
    tag_list: article.tags,
    canonical_url: article.canonicalUrl ?? articleUrl(article),
    published_timestamp: article.publishedAt ?? '',
    reading_time_minutes: Math.max(1, Math.round(article.bodyMarkdown.split(/\s+/).length / 275)),
    user: {
      name: article.username, username: article.username, twitter_username: null, github_username: null,
      user_id: article.userId, website_url: null,
      profile_image: `https://media.dev.to/${article.username}-640.png`,
      profile_image_90: `https://media.dev.to/${article.username}-90.png`,
    },
    ...(article.organization === null ? {} : {
      organization: {
        name: article.organization.name,
        username: article.organization.username,
        slug: article.organization.username,
        profile_image: `https://media.dev.to/${article.organization.username}.png`,
      },
    }),
  };
}

/** Forem's `order(published_at: :desc, created_at: :desc)`: PostgreSQL puts drafts (no date) first. */
export function newestFirst(articles: readonly SimulatedArticle[]): SimulatedArticle[] {
  return [...articles].sort((a, b) => {
    if (a.publishedAt !== b.publishedAt) {
      if (a.publishedAt === null) return -1;
      if (b.publishedAt === null) return 1;
      return b.publishedAt.localeCompare(a.publishedAt);
    }
    return b.id - a.id;
  });
}

/** Kaminari's `page`/`per` as Forem reads them: per_page 30 by default, at most 1000. */
export function pageOf<T>(items: readonly T[], query: URLSearchParams): T[] {
  const per = Math.min(Number(query.get('per_page') ?? '30') || 30, 1000);
  const page = Math.max(Number(query.get('page') ?? '1') || 1, 1);
  return items.slice((page - 1) * per, page * per);
}
