import { randomBytes } from 'node:crypto';
import twitterText from 'twitter-text';
import { jsonBody, type SimulatedAnswer } from '../kit/simulator-server.ts';
import type { XMediaStore } from './x-media.ts';
import { invalidRequest, problem, problemTypes } from './x-problems.ts';
import type { RawRequest } from './x-multipart.ts';

/**
 * Posts as the X simulator keeps them: `POST /2/tweets` checked field by field as X's schema
 * does (unknown fields refused; media, poll and quote exclusive; 280 weighted characters;
 * identical text refused as duplicate content), the user's timeline (`GET /2/users/:id/tweets`)
 * and a post's lookup (`GET /2/tweets/:id`) rendered as X renders text: `&`, `<`, `>` escaped,
 * links wrapped in t.co links with entities, a t.co link to the media appended.
 */

export interface PostMetrics {
  retweet_count: number;
  reply_count: number;
  like_count: number;
  quote_count: number;
  bookmark_count: number;
  impression_count: number;
}

export interface SimulatedPost {
  id: string;
  authorId: string;
  /** The text as it was sent. */
  text: string;
  mediaIds: string[];
  replyTo: string | null;
  /** The other fields of the request, as sent (reply_settings, poll, made_with_ai...). */
  options: Record<string, unknown>;
  createdAt: Date;
  metrics: PostMetrics;
}

const bodyFields = new Set([
  'text', 'media', 'reply', 'quote_tweet_id', 'poll', 'reply_settings', 'community_id', 'made_with_ai',
  'paid_partnership', 'for_super_followers_only', 'nullcast', 'geo', 'direct_message_deep_link',
  'card_uri', 'edit_options', 'share_with_followers',
]);
const replySettings = ['following', 'mentionedUsers', 'subscribers', 'verified'];
const numeric = /^\d{1,19}$/;

let nextPostId = 1890000000000000000n;

const fieldsOf = (value: unknown): Record<string, unknown> | null => (
  typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null
);

/** A t.co link: X wraps every link in one. */
const tco = (): string => `https://t.co/${randomBytes(8).toString('base64url').slice(0, 10)}`;

const escapeText = (text: string): string => (
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
);

export class XPostStore {
  readonly items: SimulatedPost[] = [];
  readonly #media: XMediaStore;

  constructor(media: XMediaStore) {
    this.#media = media;
  }

  /** POST /2/tweets for `authorId`: 201 `{data: {id, text, edit_history_tweet_ids}}`. */
  create(request: RawRequest, authorId: string): SimulatedAnswer | { post: SimulatedPost } {
    const body = fieldsOf(jsonBody(request));
    if (body === null) return invalidRequest('The request body must be a JSON object.');
    const unknown = Object.keys(body).find((key) => !bodyFields.has(key));
    if (unknown !== undefined) {
      const message = `$.${unknown}: is not defined in the schema and the schema does not allow additional properties`;
      return invalidRequest(message);
    }
    const { text, media, reply, quote_tweet_id: quote, poll } = body;
    if (text !== undefined && typeof text !== 'string') return invalidRequest('$.text: string expected', 'text', text);
    const mediaIds = this.#mediaIds(media, authorId);
    if (!Array.isArray(mediaIds)) return mediaIds;
    if ((text ?? '') === '' && mediaIds.length === 0) {
      return invalidRequest('A post needs text or media.', 'text');
    }
    const exclusive = [mediaIds.length > 0, quote !== undefined, poll !== undefined].filter(Boolean).length;
    if (exclusive > 1) return invalidRequest('media, poll and quote_tweet_id are mutually exclusive.');
    if (twitterText.parseTweet(text ?? '').weightedLength > 280) {
      return invalidRequest('Tweet text is too long.', 'text');
    }
    const replyTo = this.#replyTo(reply);
    if (typeof replyTo === 'object' && replyTo !== null) return replyTo;
    const optionProblem = this.#checkOptions(body);
    if (optionProblem !== null) return optionProblem;
    if ((text ?? '') !== '' && this.items.some((post) => post.authorId === authorId && post.text === text)) {
      return problem(403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
    }
    nextPostId += 1n;
    const sentAsPost = ['text', 'media', 'reply'];
    const options = Object.fromEntries(Object.entries(body).filter(([key]) => !sentAsPost.includes(key)));
    const post: SimulatedPost = {
      id: nextPostId.toString(),
      authorId,
      text: text ?? '',
      mediaIds,
      replyTo,
      options,
      createdAt: new Date(),
      metrics: {
        retweet_count: 0, reply_count: 0, like_count: 0, quote_count: 0, bookmark_count: 0, impression_count: 0,
      },
    };
    this.items.push(post);
    const parent = this.items.find((candidate) => candidate.id === replyTo);
    if (parent !== undefined) parent.metrics.reply_count += 1;
    return { post };
  }

  /** `media.media_ids`: 1-4 processed media of the author, one GIF or video alone. */
  #mediaIds(media: unknown, authorId: string): string[] | SimulatedAnswer {
    if (media === undefined) return [];
    const ids = fieldsOf(media)?.media_ids;
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > 4 || !ids.every((id) => typeof id === 'string')) {
      return invalidRequest('$.media.media_ids: 1 to 4 media id strings expected', 'media.media_ids');
    }
    const found = ids.map((id) => this.#media.find(id, authorId));
    if (found.some((item) => item?.state !== 'succeeded')) {
      return invalidRequest('Your media IDs are invalid.', 'media.media_ids', ids.join(','));
    }
    if (found.length > 1 && found.some((item) => item?.category !== 'tweet_image')) {
      return invalidRequest('A GIF or a video goes alone in a post.', 'media.media_ids');
    }
    return ids;
  }

  #replyTo(reply: unknown): string | null | SimulatedAnswer {
    if (reply === undefined) return null;
    const parent = fieldsOf(reply)?.in_reply_to_tweet_id;
    if (typeof parent !== 'string' || !numeric.test(parent)) {
      const message = '$.reply.in_reply_to_tweet_id: a post id string expected';
      return invalidRequest(message, 'reply.in_reply_to_tweet_id', parent);
    }
    if (!this.items.some((post) => post.id === parent)) {
      return invalidRequest('The post you are replying to does not exist.', 'reply.in_reply_to_tweet_id', parent);
    }
    return parent;
  }

  #checkOptions(body: Record<string, unknown>): SimulatedAnswer | null {
    const { reply_settings: who, community_id: community, quote_tweet_id: quote, poll } = body;
    if (who !== undefined && (typeof who !== 'string' || !replySettings.includes(who))) {
      return invalidRequest(`$.reply_settings: must be one of ${replySettings.join(', ')}`, 'reply_settings', who);
    }
    if (community !== undefined && (typeof community !== 'string' || !numeric.test(community))) {
      return invalidRequest('$.community_id: a numeric string expected', 'community_id', community);
    }
    if (quote !== undefined && (typeof quote !== 'string' || !this.items.some((post) => post.id === quote))) {
      return invalidRequest('The quoted post does not exist.', 'quote_tweet_id', quote);
    }
    for (const label of ['made_with_ai', 'paid_partnership']) {
      if (body[label] !== undefined && typeof body[label] !== 'boolean') {
        return invalidRequest(`$.${label}: boolean expected`, label);
      }
    }
    if (poll === undefined) return null;
    const fields = fieldsOf(poll);
    const options = fields?.options;
    const minutes = fields?.duration_minutes;
    const optionsOk = Array.isArray(options) && options.length >= 2 && options.length <= 4
      && options.every((option) => typeof option === 'string' && option.length >= 1 && option.length <= 25);
    if (!optionsOk) {
      return invalidRequest('$.poll.options: 2 to 4 options of 1 to 25 characters expected', 'poll.options');
    }
    if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 5 || minutes > 10080) {
      return invalidRequest('$.poll.duration_minutes: 5 to 10080 expected', 'poll.duration_minutes', minutes);
    }
    return null;
  }

  /** The post as X renders it in lookups and timelines. */
  render(post: SimulatedPost, username: string, fields: string[]): Record<string, unknown> {
    const links: Record<string, unknown>[] = [];
    let text = post.text;
    for (const found of twitterText.extractUrls(post.text)) {
      const short = tco();
      text = text.replace(found, short);
      const expanded = /^https?:\/\//i.test(found) ? found : `http://${found}`;
      links.push({ url: short, expanded_url: expanded, display_url: found.replace(/^https?:\/\//i, '') });
    }
    text = escapeText(text);
    const first = this.#media.items.find((item) => item.id === post.mediaIds[0]);
    if (first !== undefined) {
      const short = tco();
      const kind = first.category === 'tweet_image' ? 'photo' : 'video';
      text = `${text} ${short}`.trim();
      links.push({
        url: short, expanded_url: `https://x.com/${username}/status/${post.id}/${kind}/1`, media_key: first.mediaKey,
        display_url: `pic.x.com/${short.slice(-10)}`,
      });
    }
    for (const link of links) {
      // X counts entity positions in code points.
      const start = Array.from(text.slice(0, text.indexOf(String(link.url)))).length;
      Object.assign(link, { start, end: start + Array.from(String(link.url)).length });
    }
    const data: Record<string, unknown> = { id: post.id, text, edit_history_tweet_ids: [post.id] };
    if (fields.includes('created_at')) data.created_at = post.createdAt.toISOString();
    if (fields.includes('entities') && links.length > 0) data.entities = { urls: links };
    if (fields.includes('referenced_tweets')) {
      const quoted = post.options.quote_tweet_id;
      const references = [
        ...(post.replyTo === null ? [] : [{ type: 'replied_to', id: post.replyTo }]),
        ...(typeof quoted === 'string' ? [{ type: 'quoted', id: quoted }] : []),
      ];
      if (references.length > 0) data.referenced_tweets = references;
    }
    if (fields.includes('public_metrics')) data.public_metrics = { ...post.metrics };
    if (fields.includes('attachments') && post.mediaIds.length > 0) {
      const keys = post.mediaIds.map((id) => this.#media.items.find((item) => item.id === id)?.mediaKey);
      data.attachments = { media_keys: keys };
    }
    return data;
  }

  /** GET /2/users/:id/tweets: newest first, `max_results` 5-100, `start_time` in whole seconds. */
  timeline(request: RawRequest, userId: string, username: string): SimulatedAnswer {
    const max = Number(request.query.get('max_results') ?? '10');
    if (!Number.isInteger(max) || max < 5 || max > 100) {
      return invalidRequest('max_results must be between 5 and 100', 'max_results', max);
    }
    const startTime = request.query.get('start_time');
    if (startTime !== null && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(startTime)) {
      return invalidRequest('start_time must be a YYYY-MM-DDTHH:mm:ssZ timestamp', 'start_time', startTime);
    }
    const since = startTime === null ? 0 : Date.parse(startTime);
    const fields = (request.query.get('tweet.fields') ?? '').split(',');
    const posts = this.items
      .filter((post) => post.authorId === userId && post.createdAt.getTime() >= since)
      .reverse()
      .slice(0, max);
    // X leaves `data` out of an empty page.
    const ends = posts.length > 0 ? { newest_id: posts[0]?.id, oldest_id: posts.at(-1)?.id } : {};
    const meta = { result_count: posts.length, ...ends };
    const data = posts.map((post) => this.render(post, username, fields));
    return { status: 200, body: posts.length === 0 ? { meta } : { data, meta } };
  }

  /**
   * DELETE /2/tweets/:id (DeletePostsResponse): the author's own post goes, `{data: {deleted: true}}`;
   * an unknown one is a 200 with errors[] as lookups answer it; someone else's is refused with 403.
   */
  remove(id: string, authorId: string): SimulatedAnswer {
    const index = this.items.findIndex((candidate) => candidate.id === id);
    const post = this.items[index];
    if (post === undefined) {
      const error = {
        value: id, detail: `Could not find tweet with id: [${id}].`, title: 'Not Found Error', resource_type: 'tweet',
        parameter: 'id', resource_id: id, type: `${problemTypes}/resource-not-found`,
      };
      return { status: 200, body: { data: { deleted: false }, errors: [error] } };
    }
    if (post.authorId !== authorId) {
      const detail = 'You are not authorized to delete this Tweet.';
      return { status: 403, body: { title: 'Forbidden', detail, type: 'about:blank', status: 403 } };
    }
    this.items.splice(index, 1);
    return { status: 200, body: { data: { deleted: true } } };
  }

  /** GET /2/tweets/:id: an unknown post is a 200 with errors[], as X answers lookups. */
  lookup(request: RawRequest, id: string, usernameOf: (userId: string) => string): SimulatedAnswer {
    const post = this.items.find((candidate) => candidate.id === id);
    if (post === undefined) {
      const error = {
        value: id, detail: `Could not find tweet with id: [${id}].`, title: 'Not Found Error', resource_type: 'tweet',
        parameter: 'id', resource_id: id, type: `${problemTypes}/resource-not-found`,
      };
      return { status: 200, body: { errors: [error] } };
    }
    const fields = (request.query.get('tweet.fields') ?? '').split(',');
    return { status: 200, body: { data: this.render(post, usernameOf(post.authorId), fields) } };
  }
}
