import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import type {
  RedditRecords, SimulatedComment, SimulatedPost, SimulatedRedditUser, SimulatedSubreddit,
} from './reddit-records.ts';

/**
 * Reddit's reads publishing and the tools use: the account (`/api/v1/me`), its own listings
 * (`/user/<name>/submitted`, `/user/<name>/comments`, newest first, `limit` at most 100),
 * `/api/info`, subreddit search and subscriptions, and a subreddit's `about`, rules, link flairs
 * and post requirements. Listings are `{kind: "Listing", data: {children: [{kind, data}], after}}`.
 * Without `raw_json=1` Reddit escapes `&`, `<` and `>` in text as HTML entities; so does this.
 */
const notFound: SimulatedAnswer = { status: 404, body: { message: 'Not Found', error: 404 } };

/**
 * A deleted post or comment stays readable by its fullname (`/api/info`) with its author and text
 * read as this, and leaves its author's listings.
 */
const deleted = '[deleted]';

function escaped(request: SimulatedRequest): (text: string) => string {
  if (request.query.get('raw_json') === '1') return (text) => text;
  return (text) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function listing(children: { kind: string; data: unknown }[], after: string | null = null): SimulatedAnswer {
  const data = { after, dist: children.length, modhash: '', before: null, children };
  return { status: 200, body: { kind: 'Listing', data } };
}

function limitOf(request: SimulatedRequest, fallback = 25): number {
  const asked = Number(request.query.get('limit') ?? fallback);
  return Number.isInteger(asked) && asked > 0 ? Math.min(asked, 100) : fallback;
}

export class RedditReads {
  readonly #records: RedditRecords;

  constructor(records: RedditRecords) {
    this.#records = records;
  }

  me(user: SimulatedRedditUser): SimulatedAnswer {
    const link = user.linkKarma ?? 1;
    const comment = user.commentKarma ?? 0;
    return {
      status: 200,
      body: {
        id: user.id, name: user.name, icon_img: user.icon_img, link_karma: link, comment_karma: comment,
        awardee_karma: 0, awarder_karma: 0, total_karma: link + comment, is_suspended: false,
        subreddit: { display_name_prefixed: `u/${user.name}`, icon_img: user.icon_img },
      },
    };
  }

  #post(request: SimulatedRequest, post: SimulatedPost): { kind: string; data: unknown } {
    const text = escaped(request);
    return {
      kind: 't3',
      data: {
        id: post.id, name: post.name, author: post.deleted === true ? deleted : post.author, subreddit: post.subreddit,
        subreddit_name_prefixed: `r/${post.subreddit}`, title: text(post.title),
        selftext: post.deleted === true ? deleted : text(post.text),
        is_self: post.kind === 'self', is_video: post.kind === 'video', is_gallery: post.kind === 'gallery',
        url: post.url ?? `https://www.reddit.com${this.#records.permalink(post)}`, over_18: post.nsfw,
        spoiler: post.spoiler, link_flair_template_id: post.flairId, link_flair_text: post.flairText,
        created_utc: post.createdUtc, permalink: this.#records.permalink(post), score: post.score, ups: post.score,
        upvote_ratio: post.upvoteRatio, num_comments: this.#records.commentsUnder(post.name),
        num_crossposts: post.crossposts, view_count: null,
      },
    };
  }

  #comment(request: SimulatedRequest, comment: SimulatedComment): { kind: string; data: unknown } {
    return {
      kind: 't1',
      data: {
        id: comment.id, name: comment.name, author: comment.deleted === true ? deleted : comment.author,
        body: comment.deleted === true ? deleted : escaped(request)(comment.text.trim()),
        parent_id: comment.parent, link_id: comment.link, created_utc: comment.createdUtc, score: comment.score,
        permalink: this.#records.commentPermalink(comment),
      },
    };
  }

  /** A media post shows among its author's posts once processed: each read of the listing counts. */
  submitted(request: SimulatedRequest, name: string): SimulatedAnswer {
    const mine = this.#records.posts.filter((post) => post.deleted !== true
      && post.author.toLowerCase() === name.toLowerCase());
    const listed = mine.filter((post) => {
      if (post.readsUntilListed <= 0) return true;
      post.readsUntilListed -= 1;
      return false;
    });
    const newest = listed.toReversed().slice(0, limitOf(request));
    return listing(newest.map((post) => this.#post(request, post)));
  }

  comments(request: SimulatedRequest, name: string): SimulatedAnswer {
    const mine = this.#records.comments.filter((comment) => comment.deleted !== true
      && comment.author.toLowerCase() === name.toLowerCase());
    return listing(mine.toReversed().slice(0, limitOf(request)).map((comment) => this.#comment(request, comment)));
  }

  info(request: SimulatedRequest): SimulatedAnswer {
    const ids = (request.query.get('id') ?? '').split(',').filter((id) => id !== '');
    const found = ids.flatMap((id) => {
      const post = this.#records.post(id);
      if (post !== undefined) return [this.#post(request, post)];
      const comment = this.#records.comment(id);
      return comment === undefined ? [] : [this.#comment(request, comment)];
    });
    return listing(found);
  }

  #subreddit(subreddit: SimulatedSubreddit): { kind: string; data: unknown } {
    return {
      kind: 't5',
      data: {
        display_name: subreddit.name, name: `t5_${subreddit.name.toLowerCase()}`,
        title: subreddit.title ?? subreddit.name,
        public_description: subreddit.description ?? '', subscribers: subreddit.subscribers ?? 0,
        over18: subreddit.over18 ?? false, subreddit_type: subreddit.type ?? 'public',
        submission_type: subreddit.submissionType ?? 'any', allow_images: subreddit.allowImages ?? true,
        allow_videos: subreddit.allowVideos ?? true, allow_galleries: subreddit.allowGalleries ?? true,
        link_flair_enabled: (subreddit.flairs ?? []).length > 0,
        icon_img: '', community_icon: `https://styles.redditmedia.com/${subreddit.name}.png?width=256&amp;s=1f`,
        url: `/r/${subreddit.name}/`,
      },
    };
  }

  search(request: SimulatedRequest): SimulatedAnswer {
    const q = (request.query.get('q') ?? '').toLowerCase();
    if (q === '') return { status: 400, body: { message: 'Bad Request', error: 400 } };
    const found = this.#records.subreddits.filter((subreddit) => subreddit.name.toLowerCase().includes(q)
      || (subreddit.title ?? '').toLowerCase().includes(q));
    return listing(found.slice(0, limitOf(request)).map((subreddit) => this.#subreddit(subreddit)));
  }

  /** Pages of subscriptions: `after` names the last subreddit of the page before. */
  mine(request: SimulatedRequest, user: SimulatedRedditUser): SimulatedAnswer {
    const subscribed = this.#records.subreddits.filter((subreddit) => (subreddit.members ?? []).includes(user.name));
    const after = request.query.get('after');
    const start = after === null ? 0 : subscribed.findIndex((item) => `t5_${item.name.toLowerCase()}` === after) + 1;
    const page = subscribed.slice(start, start + limitOf(request));
    const last = page.at(-1);
    const more = last !== undefined && start + page.length < subscribed.length;
    return listing(page.map((subreddit) => this.#subreddit(subreddit)), more ? `t5_${last.name.toLowerCase()}` : null);
  }

  /** `/r/<sr>/about...` and `/api/v1/<sr>/post_requirements`; a private subreddit is 403 to outsiders. */
  subredditRead(user: SimulatedRedditUser, name: string, what: string): SimulatedAnswer {
    const subreddit = this.#records.subreddit(name);
    if (subreddit === undefined) return notFound;
    if (subreddit.type === 'private' && !(subreddit.members ?? []).includes(user.name)) {
      return { status: 403, body: { reason: 'private', message: 'Forbidden', error: 403 } };
    }
    switch (what) {
      case 'about':
        return { status: 200, body: this.#subreddit(subreddit) };
      case 'rules':
        return {
          status: 200,
          body: {
            rules: (subreddit.rules ?? []).map((rule, index) => ({
              kind: rule.kind, description: rule.description, short_name: rule.name,
              violation_reason: rule.name, created_utc: 1_600_000_000, priority: index,
            })),
            site_rules: ['Spam'],
          },
        };
      case 'flairs':
        return {
          status: 200,
          body: (subreddit.flairs ?? []).map((flair) => ({
            id: flair.id, text: flair.text, text_editable: flair.textEditable ?? false,
            mod_only: flair.modOnly ?? false, max_emojis: 10, override_css: false,
            type: 'text', background_color: '#ff4500', text_color: 'light', allowable_content: 'all', richtext: [],
          })),
        };
      default:
        return {
          status: 200,
          body: {
            is_flair_required: subreddit.flairRequired ?? false,
            title_text_min_length: subreddit.titleMinLength ?? null, title_text_max_length: null,
            title_regexes: [], title_required_strings: [], title_blacklisted_strings: [],
            body_restriction_policy: subreddit.submissionType === 'link' ? 'notAllowed' : 'none',
            body_text_min_length: null, body_text_max_length: null, body_required_strings: [],
            body_blacklisted_strings: [], link_restriction_policy: 'none', domain_whitelist: [],
            domain_blacklist: [], gallery_min_items: null, gallery_max_items: null, guidelines_text: null,
          },
        };
    }
  }
}
