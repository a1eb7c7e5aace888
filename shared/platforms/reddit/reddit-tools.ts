import { z } from 'zod';
import type { ToolHandler } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import type { RedditApi } from './reddit-api.ts';
import { subredditName } from './definition.ts';
import { provider } from './reddit-errors.ts';
import { listingOf } from './reddit-listings.ts';

/**
 * The tools the definition declares, each one Reddit read (open-and-community.md 6.8): what a
 * user needs to pick a subreddit and fill in a post it will take.
 */

const subredditInput = z.object({ subreddit: subredditName });
const searchInput = z.object({
  q: z.string().trim().min(1, 'q (the search text) is required').max(512),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

function parsed<T>(tool: string, schema: z.ZodType<T>, data: Record<string, unknown>): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || 'data'}: ${issue.message}`);
  throw new PlatformError({ kind: 'permanent', provider, message: `${tool}: ${problems.join('; ')}` });
}

/** A subreddit as search, subscriptions and `about` describe it (kind t5). */
const subreddit = z.object({
  display_name: z.string(),
  title: z.string().default(''),
  public_description: z.string().nullable().optional(),
  subscribers: z.number().nullable().optional(),
  over18: z.boolean().nullable().optional(),
  subreddit_type: z.string(),
  submission_type: z.string().nullable().optional(),
  allow_images: z.boolean().nullable().optional(),
  allow_videos: z.boolean().nullable().optional(),
  allow_galleries: z.boolean().nullable().optional(),
  link_flair_enabled: z.boolean().nullable().optional(),
  icon_img: z.string().nullable().optional(),
  community_icon: z.string().nullable().optional(),
});
const subreddits = listingOf(subreddit);
const about = z.object({ kind: z.string(), data: subreddit });

type Subreddit = z.infer<typeof subreddit>;

/** Reddit escapes `&` in icon URLs; an empty string means none. */
function icon(item: Subreddit): string | null {
  const value = (item.community_icon ?? '') === '' ? item.icon_img ?? '' : item.community_icon ?? '';
  return value === '' ? null : value.replace(/&amp;/g, '&');
}

const summary = (item: Subreddit) => ({
  name: item.display_name,
  title: item.title,
  description: item.public_description ?? null,
  subscribers: item.subscribers ?? null,
  nsfw: item.over18 ?? false,
  type: item.subreddit_type,
  icon: icon(item),
});

const postRequirements = z.object({
  is_flair_required: z.boolean().nullable().optional(),
  title_text_min_length: z.number().nullable().optional(),
  title_text_max_length: z.number().nullable().optional(),
  title_regexes: z.array(z.string()).nullable().optional(),
  title_required_strings: z.array(z.string()).nullable().optional(),
  title_blacklisted_strings: z.array(z.string()).nullable().optional(),
  body_restriction_policy: z.string().nullable().optional(),
  body_text_min_length: z.number().nullable().optional(),
  body_text_max_length: z.number().nullable().optional(),
  body_required_strings: z.array(z.string()).nullable().optional(),
  body_blacklisted_strings: z.array(z.string()).nullable().optional(),
  link_restriction_policy: z.string().nullable().optional(),
  domain_whitelist: z.array(z.string()).nullable().optional(),
  domain_blacklist: z.array(z.string()).nullable().optional(),
  gallery_min_items: z.number().nullable().optional(),
  gallery_max_items: z.number().nullable().optional(),
  guidelines_text: z.string().nullable().optional(),
});

const flairs = z.array(z.object({
  id: z.string(),
  text: z.string().nullable().optional(),
  text_editable: z.boolean().default(false),
  mod_only: z.boolean().default(false),
  background_color: z.string().nullable().optional(),
  text_color: z.string().nullable().optional(),
}));

const rules = z.object({
  rules: z.array(z.object({
    short_name: z.string(),
    description: z.string().default(''),
    kind: z.string().optional(),
    violation_reason: z.string().nullable().optional(),
  })),
});

/** Pages of subscriptions read at most: 500 subreddits. */
const maxSubscriptionPages = 5;

export function redditTools(api: RedditApi): Record<string, ToolHandler> {
  const path = (sr: string, rest: string) => `/r/${encodeURIComponent(sr)}${rest}`;

  async function aboutOf(token: string, sr: string): Promise<Subreddit> {
    const answer = await api.read(token, { method: 'GET', path: path(sr, '/about') }, about, 'a subreddit');
    // For a name it does not know, Reddit may answer a listing of search results instead.
    if (answer.kind !== 't5') {
      throw new PlatformError({ kind: 'permanent', provider, message: `Reddit has no subreddit r/${sr}` });
    }
    return answer.data;
  }

  return {
    async searchSubreddits(channel, data) {
      const { q, limit } = parsed('searchSubreddits', searchInput, data);
      const query = { q, limit: String(limit ?? 25) };
      const found = await api.read(channel.accessToken, {
        method: 'GET', path: '/subreddits/search', query,
      }, subreddits, 'subreddits');
      // Only subreddits a user can join and post to; private ones answer nothing useful.
      return found.data.children.map((child) => child.data)
        .filter((item) => item.subreddit_type === 'public' || item.subreddit_type === 'restricted')
        .map(summary);
    },

    async mySubreddits(channel) {
      const all: Subreddit[] = [];
      let after: string | null = null;
      for (let page = 0; page < maxSubscriptionPages; page += 1) {
        const query: Record<string, string> = { limit: '100', ...(after === null ? {} : { after }) };
        const found = await api.read(channel.accessToken, {
          method: 'GET', path: '/subreddits/mine/subscriber', query,
        }, subreddits, 'the subscriptions');
        all.push(...found.data.children.map((child) => child.data));
        after = found.data.after ?? null;
        if (after === null) break;
      }
      return all.map(summary);
    },

    async subredditSettings(channel, data) {
      const { subreddit: sr } = parsed('subredditSettings', subredditInput, data);
      const item = await aboutOf(channel.accessToken, sr);
      return {
        ...summary(item),
        // any: links and text; link: links (and media) only; self: text only.
        submissionType: item.submission_type ?? 'any',
        allowImages: item.allow_images ?? false,
        allowVideos: item.allow_videos ?? false,
        allowGalleries: item.allow_galleries ?? false,
        linkFlairEnabled: item.link_flair_enabled ?? false,
      };
    },

    async postRequirements(channel, data) {
      const { subreddit: sr } = parsed('postRequirements', subredditInput, data);
      const found = await api.read(channel.accessToken, {
        method: 'GET', path: `/api/v1/${encodeURIComponent(sr)}/post_requirements`,
      }, postRequirements, 'post requirements');
      return {
        flairRequired: found.is_flair_required ?? false,
        titleMinLength: found.title_text_min_length ?? null,
        titleMaxLength: found.title_text_max_length ?? null,
        titlePatterns: found.title_regexes ?? [],
        titleRequiredStrings: found.title_required_strings ?? [],
        titleForbiddenStrings: found.title_blacklisted_strings ?? [],
        bodyPolicy: found.body_restriction_policy ?? null,
        bodyMinLength: found.body_text_min_length ?? null,
        bodyMaxLength: found.body_text_max_length ?? null,
        bodyRequiredStrings: found.body_required_strings ?? [],
        bodyForbiddenStrings: found.body_blacklisted_strings ?? [],
        linkPolicy: found.link_restriction_policy ?? null,
        allowedDomains: found.domain_whitelist ?? [],
        forbiddenDomains: found.domain_blacklist ?? [],
        galleryMinItems: found.gallery_min_items ?? null,
        galleryMaxItems: found.gallery_max_items ?? null,
        guidelines: found.guidelines_text ?? null,
      };
    },

    async flairs(channel, data) {
      const { subreddit: sr } = parsed('flairs', subredditInput, data);
      const found = await api.read(channel.accessToken, {
        method: 'GET', path: path(sr, '/api/link_flair_v2'),
      }, flairs, 'link flairs');
      return found.map((flair) => ({
        id: flair.id,
        text: flair.text ?? '',
        textEditable: flair.text_editable,
        modOnly: flair.mod_only,
        backgroundColor: flair.background_color ?? null,
        textColor: flair.text_color ?? null,
      }));
    },

    async rules(channel, data) {
      const { subreddit: sr } = parsed('rules', subredditInput, data);
      const found = await api.read(channel.accessToken, {
        method: 'GET', path: path(sr, '/about/rules'),
      }, rules, 'subreddit rules');
      return found.rules.map((rule) => ({
        name: rule.short_name,
        description: rule.description,
        // link: posts only; comment: comments only; all: both.
        appliesTo: rule.kind ?? 'all',
        violationReason: rule.violation_reason ?? null,
      }));
    },
  };
}
