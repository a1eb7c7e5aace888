import { formBody, jsonBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import type { RedditRecords, SimulatedPost, SimulatedRedditUser, SimulatedSubreddit } from './reddit-records.ts';
import type { RedditUploads } from './reddit-uploads.ts';

/**
 * The writes publishing makes (open-and-community.md 6.2, 6.4, 6.5): `POST /api/submit`,
 * `POST /api/submit_gallery_post.json` and `POST /api/comment`, and `POST /api/del`, which deletes
 * what they made. As Reddit does, the first three refuse with HTTP 200 and
 * `{"json": {"errors": [[CODE, message, field], ...]}}`, and throttle an account that posts too
 * often with RATELIMIT and `json.ratelimit` (seconds). Self, link and
 * gallery posts and comments are answered with what was made; image and video posts only with
 * where to hear of them, and show among the author's posts once "processed".
 */
type ErrorEntry = [code: string, message: string, field: string];

export const jsonErrors = (errors: ErrorEntry[], extra: Record<string, unknown> = {}): SimulatedAnswer => (
  { status: 200, body: { json: { ...extra, errors } } }
);

const kinds = ['self', 'link', 'image', 'video', 'videogif'] as const;
type FormKind = (typeof kinds)[number];
const isKind = (value: string): value is FormKind => (kinds as readonly string[]).includes(value);

const required = (field: string): ErrorEntry => ['NO_TEXT', 'we need something here', field];
const tooLong = (field: string, max: number): ErrorEntry => (
  ['TOO_LONG', `this is too long (max: ${String(max)})`, field]
);

/** What one submission asked for, whichever way it came (form or JSON). */
interface Asked {
  sr: string;
  title: string;
  text: string;
  flairId: string | null;
  flairText: string | null;
  nsfw: boolean;
  spoiler: boolean;
  sendReplies: boolean;
}

const truthy = (value: unknown): boolean => value === true || value === 'true' || value === '1' || value === 'on';

export class RedditSubmissions {
  readonly #records: RedditRecords;
  readonly #uploads: RedditUploads;
  readonly #now: () => number;
  /** Waits (seconds) the next posting attempts are throttled for, one RATELIMIT each. */
  readonly throttled: number[] = [];
  /** Listing reads an image or video post takes to show among its author's posts. */
  processingReads = 0;

  constructor(records: RedditRecords, uploads: RedditUploads, now: () => number) {
    this.#records = records;
    this.#uploads = uploads;
    this.#now = now;
  }

  #throttle(): SimulatedAnswer | null {
    const seconds = this.throttled.shift();
    if (seconds === undefined) return null;
    const message = `Looks like you've been doing that a lot. Take a break for ${String(seconds)} seconds before `
      + 'trying again.';
    return jsonErrors([['RATELIMIT', message, 'ratelimit']], { ratelimit: seconds + 0.59 });
  }

  /** The subreddit, or Reddit's refusal to let this account post there. */
  #target(user: SimulatedRedditUser, sr: string): SimulatedSubreddit | SimulatedAnswer {
    if (sr === '') return jsonErrors([required('sr')]);
    const subreddit = this.#records.subreddit(sr);
    if (subreddit === undefined) return jsonErrors([['SUBREDDIT_NOEXIST', 'that subreddit doesn\'t exist', 'sr']]);
    const member = (subreddit.members ?? []).includes(user.name);
    if (subreddit.type === 'private' && !member) {
      return { status: 403, body: { reason: 'private', message: 'Forbidden', error: 403 } };
    }
    if (subreddit.type === 'restricted' && !member) {
      return jsonErrors([['SUBREDDIT_NOTALLOWED', 'you aren\'t allowed to post there.', 'sr']]);
    }
    return subreddit;
  }

  /** Checks every kind shares: title, flair. */
  #common(subreddit: SimulatedSubreddit, asked: Asked): ErrorEntry[] {
    const errors: ErrorEntry[] = [];
    if (asked.title.trim() === '') errors.push(required('title'));
    else if (asked.title.length > 300) errors.push(tooLong('title', 300));
    if (subreddit.flairRequired === true && asked.flairId === null) {
      errors.push(['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair']);
    }
    return errors;
  }

  #make(user: SimulatedRedditUser, subreddit: SimulatedSubreddit, asked: Asked, kind: SimulatedPost['kind'],
    media: { url: string | null; posterUrl: string | null; galleryAssets: string[] }): SimulatedPost {
    const id = this.#records.newId();
    const post: SimulatedPost = {
      id, name: `t3_${id}`, author: user.name, subreddit: subreddit.name, kind, title: asked.title, text: asked.text,
      ...media,
      flairId: asked.flairId, flairText: asked.flairText, nsfw: asked.nsfw, spoiler: asked.spoiler,
      sendReplies: asked.sendReplies, createdUtc: this.#now() / 1000, score: 1, upvoteRatio: 1, crossposts: 0,
      readsUntilListed: kind === 'self' || kind === 'link' || kind === 'gallery' ? 0 : this.processingReads,
    };
    this.#records.posts.push(post);
    return post;
  }

  submit(user: SimulatedRedditUser, request: SimulatedRequest): SimulatedAnswer {
    const form = formBody(request);
    // Without api_type=json Reddit answers in its old jQuery format, which no client reads.
    if (form.get('api_type') !== 'json') return { status: 200, body: { jquery: [], success: false } };
    const throttled = this.#throttle();
    if (throttled !== null) return throttled;
    const target = this.#target(user, form.get('sr') ?? '');
    if ('status' in target) return target;
    const asked: Asked = {
      sr: target.name, title: form.get('title') ?? '', text: form.get('text') ?? '',
      flairId: form.get('flair_id'), flairText: form.get('flair_text'), nsfw: truthy(form.get('nsfw')),
      spoiler: truthy(form.get('spoiler')),
      sendReplies: form.get('sendreplies') === null || truthy(form.get('sendreplies')),
    };
    const kind = form.get('kind') ?? '';
    if (!isKind(kind)) return jsonErrors([['INVALID_OPTION', 'that option is not valid', 'kind']]);
    const errors = this.#common(target, asked);
    const url = form.get('url') ?? '';
    const allows = target.submissionType ?? 'any';
    if (kind === 'self') {
      if (allows === 'link') errors.push(['NO_SELFS', 'This community doesn\'t allow text posts.', 'sr']);
      if (asked.text.length > 40_000) errors.push(tooLong('text', 40_000));
    } else if (allows === 'self') {
      errors.push(['NO_LINKS', 'This community only allows text posts.', 'sr']);
    }
    if (kind === 'link') {
      if (URL.parse(url) === null) errors.push(['BAD_URL', 'you should check that url', 'url']);
      const again = this.#records.posts.some((post) => post.kind === 'link' && post.url === url
        && post.subreddit === target.name);
      if (again && !truthy(form.get('resubmit'))) {
        errors.push(['ALREADY_SUB', 'that link has already been submitted', 'url']);
      }
    }
    let posterUrl: string | null = null;
    if (kind === 'image' || kind === 'video' || kind === 'videogif') {
      const video = kind !== 'image';
      // Reddit's codes for a subreddit without images or videos are not documented; these read alike.
      if (!video && target.allowImages === false) {
        errors.push(['NO_IMAGES', 'This community doesn\'t allow images.', 'sr']);
      }
      if (video && target.allowVideos === false) {
        errors.push(['NO_VIDEOS', 'This community doesn\'t allow videos.', 'sr']);
      }
      const asset = this.#uploads.assetAt(url);
      if (asset?.mimeType.startsWith(video ? 'video/' : 'image/') !== true) {
        errors.push(['BAD_URL', 'you should check that url', 'url']);
      }
      if (video) {
        posterUrl = form.get('video_poster_url');
        const poster = this.#uploads.assetAt(posterUrl ?? '');
        if (poster?.mimeType.startsWith('image/') !== true) errors.push(required('video_poster_url'));
      }
    }
    if (errors.length > 0) return jsonErrors(errors);
    const media = { url: kind === 'self' ? null : url, posterUrl, galleryAssets: [] };
    const post = this.#make(user, target, asked, kind, media);
    if (kind === 'image' || kind === 'video' || kind === 'videogif') {
      return {
        status: 200,
        body: {
          json: {
            errors: [],
            data: {
              user_submitted_page: `https://www.reddit.com/user/${user.name}/submitted/`,
              websocket_url: `wss://ws-simulated.redditmedia.com/rte_images/${post.id}?m=AQAA`,
            },
          },
        },
      };
    }
    const permalink = `https://www.reddit.com${this.#records.permalink(post)}`;
    const data = { url: permalink, drafts_count: 0, id: post.id, name: post.name };
    return { status: 200, body: { json: { errors: [], data } } };
  }

  gallery(user: SimulatedRedditUser, request: SimulatedRequest): SimulatedAnswer {
    const body = jsonBody(request);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return { status: 400, body: { message: 'Bad Request', error: 400 } };
    }
    const field = (name: string): unknown => (body as Record<string, unknown>)[name];
    const text = (name: string): string | null => (typeof field(name) === 'string' ? field(name) as string : null);
    const throttled = this.#throttle();
    if (throttled !== null) return throttled;
    const target = this.#target(user, text('sr') ?? '');
    if ('status' in target) return target;
    const asked: Asked = {
      sr: target.name, title: text('title') ?? '', text: text('text') ?? '', flairId: text('flair_id'),
      flairText: text('flair_text'), nsfw: truthy(field('nsfw')), spoiler: truthy(field('spoiler')),
      sendReplies: field('sendreplies') === undefined || truthy(field('sendreplies')),
    };
    const errors = this.#common(target, asked);
    if (target.allowGalleries === false) {
      errors.push(['NO_GALLERIES', 'This community doesn\'t allow galleries.', 'sr']);
    }
    const items = Array.isArray(field('items')) ? field('items') as unknown[] : [];
    const assets = items.map((item) => {
      const mediaId = typeof item === 'object' && item !== null
        ? (item as Record<string, unknown>).media_id
        : undefined;
      return this.#records.assets.find((asset) => asset.id === mediaId && asset.bytes !== null
        && asset.mimeType.startsWith('image/'));
    });
    if (items.length === 0 || items.length > 20 || assets.includes(undefined)) errors.push(required('items'));
    if (errors.length > 0) return jsonErrors(errors);
    const galleryAssets = assets.flatMap((asset) => (asset === undefined ? [] : [asset.id]));
    const post = this.#make(user, target, asked, 'gallery', { url: null, posterUrl: null, galleryAssets });
    const permalink = `https://www.reddit.com${this.#records.permalink(post)}`;
    return { status: 200, body: { json: { errors: [], data: { url: permalink, id: post.name } } } };
  }

  comment(user: SimulatedRedditUser, request: SimulatedRequest): SimulatedAnswer {
    const form = formBody(request);
    if (form.get('api_type') !== 'json') return { status: 200, body: { jquery: [], success: false } };
    const throttled = this.#throttle();
    if (throttled !== null) return throttled;
    const parent = form.get('thing_id') ?? '';
    const text = form.get('text') ?? '';
    const onPost = this.#records.post(parent);
    const onComment = this.#records.comment(parent);
    const answered = onPost ?? onComment;
    // A deleted post or comment takes no replies, as one Reddit never had.
    if (answered === undefined || answered.deleted === true) {
      return jsonErrors([parent.startsWith('t1_')
        ? ['DELETED_COMMENT', 'that comment has been deleted', 'parent']
        : ['DELETED_LINK', 'the link you are commenting on has been deleted', 'parent']]);
    }
    if (text.trim() === '') return jsonErrors([required('text')]);
    if (text.length > 10_000) return jsonErrors([tooLong('text', 10_000)]);
    const id = this.#records.newId();
    const link = onPost?.name ?? onComment?.link ?? '';
    const createdUtc = this.#now() / 1000;
    const made = { id, name: `t1_${id}`, author: user.name, parent, link, text, createdUtc, score: 1 };
    this.#records.comments.push(made);
    const thing = {
      kind: 't1',
      data: {
        id, name: made.name, author: user.name, body: text.trim(), parent_id: parent, link_id: link,
        created_utc: made.createdUtc, score: 1, permalink: this.#records.commentPermalink(made),
      },
    };
    return { status: 200, body: { json: { errors: [], data: { things: [thing] } } } };
  }

  /**
   * `POST /api/del` (reddit-archive/reddit, api.py POST_del): the author's own post or comment is
   * marked deleted. Reddit answers `{}` whatever it did: for an item deleted before, and, since its
   * author check sets an error the endpoint does not report, for an unknown id or another's item,
   * which it leaves as they are. The `edit` scope is checked before, with every route's.
   */
  del(user: SimulatedRedditUser, request: SimulatedRequest): SimulatedAnswer {
    const id = formBody(request).get('id') ?? '';
    const item = this.#records.post(id) ?? this.#records.comment(id);
    if (item !== undefined && item.author === user.name) item.deleted = true;
    return { status: 200, body: {} };
  }
}
