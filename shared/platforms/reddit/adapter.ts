import { z } from 'zod';
import type {
  AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult, RemovalTarget,
} from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';
import { redditSettings } from './definition.ts';
import { RedditApi } from './reddit-api.ts';
import { provider } from './reddit-errors.ts';
import { findComment, findSubmission, listingOf, released, submittedBy } from './reddit-listings.ts';
import { uploadPartMedia, type PartMedia } from './reddit-media.ts';
import { defaultListingTuning, sendOnce, type ListingTuning } from './reddit-send-once.ts';
import { redditTools } from './reddit-tools.ts';

type RedditSettings = z.infer<typeof redditSettings>;

const me = z.object({
  name: z.string().min(1),
  link_karma: z.number().optional(),
  comment_karma: z.number().optional(),
  total_karma: z.number().optional(),
});

/** Self and link posts: Reddit names the post (`t3_...`) and its permalink (`url`). */
const madePost = z.object({ name: z.string().regex(/^t3_\w+$/), url: z.string() });
/** Image and video posts: Reddit answers before the post exists, with where to hear of it. */
const acceptedMedia = z.union([
  madePost,
  z.object({ websocket_url: z.string().optional(), user_submitted_page: z.string().optional() }).loose(),
]);
/** Galleries: the permalink, from which the post's id is read. */
const madeGallery = z.object({ url: z.string().regex(/\/comments\/\w+/) });
const madeComment = z.object({
  things: z.array(z.object({ kind: z.literal('t1'), data: z.object({ name: z.string(), permalink: z.string() }) }))
    .min(1),
});

const counters = z.object({
  score: z.number().optional(),
  upvote_ratio: z.number().optional(),
  num_comments: z.number().optional(),
  num_crossposts: z.number().optional(),
});
const info = listingOf(counters);

/** The fullname of a post (`t3_`) or comment (`t1_`): what comments answer and SPS keeps as release id. */
const fullname = /^t[13]_[a-z0-9]+$/i;

function settingsOf(input: PublishInput): RedditSettings {
  const parsed = redditSettings.safeParse(input.settings);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `settings.${issue.path.join('.')}: ${issue.message}`);
  throw new PlatformError({ kind: 'permanent', provider, message: `Reddit post settings: ${problems.join('; ')}` });
}

const flag = (value: boolean | undefined): string | undefined => (value === undefined ? undefined : String(value));

/** The fields every kind of submission shares. */
function commonFields(settings: RedditSettings): Record<string, string> {
  const fields: Record<string, string | undefined> = {
    api_type: 'json',
    sr: settings.subreddit,
    title: settings.title,
    flair_id: settings.flair_id,
    flair_text: settings.flair_text,
    nsfw: flag(settings.nsfw),
    spoiler: flag(settings.spoiler),
    sendreplies: flag(settings.send_replies),
  };
  const given = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return Object.fromEntries(given);
}

/** `POST /api/submit` fields for one kind, with the files the part's media became. */
function submitForm(settings: RedditSettings, content: string, media: PartMedia): Record<string, string> {
  const kind = settings.type;
  const form: Record<string, string> = { ...commonFields(settings), kind };
  // Self text, or the body Reddit shows under a link or media post.
  if (kind === 'self' || content !== '') form.text = content;
  if (kind === 'link' && settings.url !== undefined) form.url = settings.url;
  const [file] = media.assets;
  if ((kind === 'image' || kind === 'video' || kind === 'videogif') && file !== undefined) form.url = file.url;
  if (media.posterUrl !== null) form.video_poster_url = media.posterUrl;
  return form;
}

const maxCaption = 180;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** At most `max` UTF-16 units, cut between whole characters: half an emoji would be malformed text. */
function clip(text: string, max: number): string {
  let kept = '';
  for (const { segment } of graphemes.segment(text)) {
    if (kept.length + segment.length > max) break;
    kept += segment;
  }
  return kept;
}

/**
 * Gallery captions are Reddit's alt text for each image, at most 180 characters.
 * `POST /api/submit_gallery_post.json` takes JSON where `/api/submit` takes a form.
 */
function galleryBody(settings: RedditSettings, content: string, media: PartMedia, input: PublishInput) {
  const { nsfw, spoiler, send_replies: sendReplies } = settings;
  return {
    api_type: 'json',
    sr: settings.subreddit,
    title: settings.title,
    ...(content === '' ? {} : { text: content }),
    items: media.assets.map((asset, index) => ({
      media_id: asset.assetId,
      caption: clip(input.media[index]?.alt ?? '', maxCaption),
      outbound_url: '',
    })),
    ...(settings.flair_id === undefined ? {} : { flair_id: settings.flair_id }),
    ...(settings.flair_text === undefined ? {} : { flair_text: settings.flair_text }),
    ...(nsfw === undefined ? {} : { nsfw }),
    ...(spoiler === undefined ? {} : { spoiler }),
    ...(sendReplies === undefined ? {} : { sendreplies: sendReplies }),
    show_error_list: true,
  };
}

/**
 * Publishes to Reddit through oauth.reddit.com (open-and-community.md, section 6) with the
 * user's bearer token: the first part as a submission of the settings' kind to the chosen
 * subreddit (self, link, image, video, videogif or gallery) with its flair, NSFW and spoiler
 * marks; later parts as comments (`POST /api/comment`), each answering the part before it.
 * Media go through Reddit's upload lease (reddit-media.ts); a video's poster is the frame the
 * media worker took from it. Reddit refuses with HTTP 200 and `json.errors` (reddit-errors.ts):
 * RATELIMIT waits as long as it says, other codes fail the post with Reddit's words.
 *
 * Exactly once (reddit-send-once.ts): Reddit has no idempotency key. Before each submission the
 * part checkpoints when it submitted; a retry first looks for the part among the account's own
 * posts or comments made since, and takes it. Image and video submissions, which Reddit answers
 * without the post's id, are found the same way once Reddit lists them.
 *
 * Deleting on the platform deletes each part, submission or comment, by its fullname
 * (`POST /api/del`, the `edit` scope).
 */
export function createRedditAdapter(
  options: AdapterOptions,
  app: PlatformApp,
  /** How media submissions are waited for; tests pass shorter waits. */
  tuning: ListingTuning = defaultListingTuning,
): PlatformAdapter {
  const api = new RedditApi(app.apiUrl, app.clientId, options.timeoutMs);

  const account = (token: string) => api.read(token, { method: 'GET', path: '/api/v1/me' }, me, 'the account');

  /** The account's name, read once per part and only where a lookup needs it. */
  function nameOf(token: string): () => Promise<string> {
    let name: Promise<string> | null = null;
    return () => {
      name ??= account(token).then((user) => user.name);
      return name;
    };
  }

  async function submit(
    settings: RedditSettings,
    input: PublishInput,
    media: PartMedia,
  ): Promise<PublishResult | null> {
    const token = input.channel.accessToken;
    if (settings.type === 'gallery') {
      const json = galleryBody(settings, input.content, media, input);
      const call = { method: 'POST' as const, path: '/api/submit_gallery_post.json', json };
      const made = await api.act(token, call, madeGallery, 'gallery');
      const id = /\/comments\/(\w+)/.exec(made.url)?.[1] ?? '';
      return { releaseId: `t3_${id}`, releaseURL: made.url };
    }
    const call = { method: 'POST' as const, path: '/api/submit', form: submitForm(settings, input.content, media) };
    if (settings.type === 'self' || settings.type === 'link') {
      const made = await api.act(token, call, madePost, `${settings.type} post`);
      return { releaseId: made.name, releaseURL: made.url };
    }
    const accepted = madePost.safeParse(await api.act(token, call, acceptedMedia, `${settings.type} post`));
    return accepted.success ? { releaseId: accepted.data.name, releaseURL: accepted.data.url } : null;
  }

  async function publish(input: PublishInput): Promise<PublishResult> {
    const settings = settingsOf(input);
    const token = input.channel.accessToken;
    const user = nameOf(token);
    return sendOnce({
      checkpoint: input.checkpoint,
      what: 'post',
      listedAtOnce: settings.type === 'self' || settings.type === 'link' || settings.type === 'gallery',
      now: Date.now,
      prepare: () => uploadPartMedia(api, token, input.media, input.checkpoint),
      send: (media) => submit(settings, input, media),
      find: async (since) => {
        const sent = { user: await user(), subreddit: settings.subreddit, title: settings.title, since };
        const post = await findSubmission(api, token, sent);
        return post === null ? null : released(post);
      },
    }, tuning);
  }

  async function comment(input: CommentInput): Promise<PublishResult> {
    const parent = input.parentReleaseId;
    if (!fullname.test(parent)) {
      throw new PlatformError({ kind: 'permanent', provider, message: `${parent} is not a Reddit post or comment` });
    }
    const token = input.channel.accessToken;
    const user = nameOf(token);
    return sendOnce({
      checkpoint: input.checkpoint,
      what: 'comment',
      listedAtOnce: true,
      now: Date.now,
      prepare: () => Promise.resolve(null),
      send: async () => {
        const form = { api_type: 'json', thing_id: parent, text: input.content };
        const made = await api.act(token, { method: 'POST', path: '/api/comment', form }, madeComment, 'comment');
        const [thing] = made.things;
        return thing === undefined ? null : released(thing.data);
      },
      find: async (since) => findComment(api, token, { user: await user(), parent, text: input.content, since }),
    }, tuning);
  }

  /**
   * `POST /api/del` with the item's fullname, the release id SPS keeps for a submission (`t3_`)
   * and for a comment, each later part (`t1_`). Reddit answers `{}` whether it deleted the item
   * now or before; its body carries nothing more to read.
   */
  async function remove(channel: ChannelCredentials, { releaseId }: RemovalTarget): Promise<void> {
    if (!fullname.test(releaseId)) {
      const message = `${releaseId} is not a Reddit post or comment`;
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const call = { method: 'POST' as const, path: '/api/del', form: { id: releaseId } };
    try {
      await removedEvenIfGone(() => api.request(channel.accessToken, call));
    } catch (error) {
      if (!(error instanceof PlatformError) || error.httpStatus !== 403) throw error;
      // Reddit's only 403 here is its scope check (another account's item is a 200 that changes nothing):
      // channels connected before SPS asked for `edit` lack it, and only connecting again grants it.
      const message = 'Reddit refused SPS the deletion (the edit scope): connect the account again to grant it';
      throw new PlatformError({ kind: 'disconnected', provider, message, httpStatus: 403, cause: error });
    }
  }

  return {
    provider,
    publish,
    comment,
    remove,

    async recentContent(channel: ChannelCredentials) {
      const { name } = await account(channel.accessToken);
      const posts = await submittedBy(api, channel.accessToken, name);
      return posts.slice(0, 25).map((post) => ({ id: post.name, url: released(post).releaseURL }));
    },

    tools: redditTools(api),

    analytics: {
      async account(channel) {
        const user = await account(channel.accessToken);
        const karma = [
          { label: 'Post karma', value: user.link_karma },
          { label: 'Comment karma', value: user.comment_karma },
          { label: 'Karma', value: user.total_karma },
        ];
        return karma.flatMap(({ label, value }) => (value === undefined ? [] : [{ label, value }]));
      },

      async post(channel, releaseId) {
        if (!fullname.test(releaseId)) {
          const message = `${releaseId} is not a Reddit post or comment`;
          throw new PlatformError({ kind: 'permanent', provider, message });
        }
        const found = await api.read(channel.accessToken, {
          method: 'GET', path: '/api/info', query: { id: releaseId },
        }, info, 'the item\'s counters');
        const item = found.data.children[0]?.data;
        if (item === undefined) {
          const message = `Reddit has no ${releaseId}: it was deleted or cannot be seen`;
          throw new PlatformError({ kind: 'permanent', provider, message });
        }
        const ratio = item.upvote_ratio === undefined ? undefined : Math.round(item.upvote_ratio * 100);
        const read = [
          { label: 'Score', value: item.score },
          { label: 'Upvote ratio (%)', value: ratio },
          { label: 'Comments', value: item.num_comments },
          { label: 'Crossposts', value: item.num_crossposts },
        ];
        return read.flatMap(({ label, value }) => (value === undefined ? [] : [{ label, value }]));
      },
    },
  };
}
