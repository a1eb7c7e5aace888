import { z } from 'zod';
import type {
  ChannelCredentials, CommentInput, PublishInput, PublishMedia, PublishResult, RemovalTarget,
} from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { removedEvenIfGone } from '../kit/platform-removal.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { linkedinSettings } from './linkedin-post-rules.ts';
import { imagesAsPdf } from './images-pdf.ts';
import { duplicatedPostUrn, isAccessDenied } from './linkedin-errors.ts';
import { type LinkedinApi } from './linkedin-http.ts';
import {
  uploadDocument, uploadImage, uploadVideo, type ProcessingWait, type UploadContext,
} from './linkedin-media.ts';
import { escapeLittleText } from './little-text.ts';

/** Who publishes for a channel: the author URN and the member's token acting for it. */
export interface LinkedinAuthor {
  author: string;
  accessToken: string;
}

export interface LinkedinPostsOptions {
  api: LinkedinApi;
  /** The member (urn:li:person) or the Page (urn:li:organization) a channel posts as. */
  authorOf(channel: ChannelCredentials): Promise<LinkedinAuthor>;
  /** Members choose who sees a post; a Page always posts publicly. */
  allowVisibility: boolean;
  wait: ProcessingWait;
}

const postUrn = z.string().regex(/^urn:li:(share|ugcPost):\d+$/);

const postsPage = z.object({
  elements: z.array(z.object({
    id: z.string(),
    author: z.string().optional(),
    commentary: z.string().optional(),
    createdAt: z.number().optional(),
    lifecycleState: z.string().optional(),
  }).loose()),
});

const commentAnswer = z.object({
  $URN: z.string().optional(),
  commentUrn: z.string().optional(),
  actor: z.string().optional(),
  message: z.object({ text: z.string() }).optional(),
}).loose();

const commentsPage = z.object({ elements: z.array(commentAnswer) });

/** A post made this long before the attempt that lost its answer is not that attempt's post (clock skew). */
const clockSkewMs = 10 * 60_000;
/** How far back the look-up reads: more than one part's retries can publish in between. */
const lookupCount = 20;

export function postUrl(urn: string): string {
  return `https://www.linkedin.com/feed/update/${urn}`;
}

export function commentUrl(parentUrn: string, commentUrn: string): string {
  return `${postUrl(parentUrn)}?commentUrn=${encodeURIComponent(commentUrn)}`;
}

/**
 * Posts and comments on LinkedIn's Posts and Comments APIs, the same for a member and for a Page
 * (only the author URN, and so the scope, differs). Facts: ../shared/platforms/oauth-majors.md,
 * section 2.
 *
 * Exactly once. LinkedIn has no idempotency key, so:
 * - every uploaded image, video or document URN is saved in the part's checkpoint as soon as
 *   initializeUpload names it, and marked uploaded once LinkedIn took the bytes: a retry reuses it
 *   rather than uploading again (linkedin-media.ts);
 * - before POST /rest/posts the part's checkpoint gets `postSentAt`. An attempt that finds it
 *   knows an earlier one may have posted: it reads the author's latest posts (the posts finder)
 *   and takes the one with this very commentary made since then. Found, that post is the part's
 *   release; not found, the part is posted. Where LinkedIn does not let the app read the
 *   author's posts (a member's posts need r_member_social, which LinkedIn grants to few apps),
 *   the part is posted again and LinkedIn's own duplicate check answers 422 "Content is a
 *   duplicate of urn:li:share:…" if the first one went through: on a retry that post is taken as
 *   the part's release. A part without text has nothing for that check, so it is set aside
 *   ('unconfirmed') instead of being sent again;
 * - comments work alike with `commentSentAt` and the post's comments, and are set aside when the
 *   comments cannot be read.
 */
export function linkedinPosts(options: LinkedinPostsOptions) {
  const { api } = options;
  const provider = api.provider;

  function refuse(message: string): PlatformError {
    return new PlatformError({ kind: 'permanent', provider, message });
  }

  function unreadable(what: string): PlatformError {
    return unreadableAnswer(provider, `LinkedIn answered ${what} in a shape`);
  }

  /** The author's latest posts, or null where LinkedIn does not let this app read them. */
  async function latestPosts(who: LinkedinAuthor): Promise<z.infer<typeof postsPage>['elements'] | null> {
    const query = `author=${encodeURIComponent(who.author)}&q=author&count=${String(lookupCount)}&sortBy=LAST_MODIFIED`;
    let raw: unknown;
    try {
      raw = await api.rest(who.accessToken, {
        method: 'GET', path: `/rest/posts?${query}`, headers: { 'X-RestLi-Method': 'FINDER' },
      });
    } catch (error) {
      if (error instanceof PlatformError && isAccessDenied(error.httpStatus, error.body)) return null;
      throw error;
    }
    const page = postsPage.safeParse(raw);
    if (!page.success) throw unreadable('the author\'s posts');
    return page.data.elements;
  }

  async function mediaContent(context: UploadContext, media: PublishMedia[], carousel: boolean): Promise<unknown> {
    if (media.length === 0) return undefined;
    const [first] = media;
    if (first?.kind === 'video') {
      if (media.length > 1) throw refuse('LinkedIn takes a video only as the post\'s single media');
      return { media: { id: await uploadVideo(context, first, 0) } };
    }
    if (media.some((item) => item.kind === 'video')) {
      throw refuse('LinkedIn takes a video only as the post\'s single media');
    }
    if (carousel) {
      const pdf = await imagesAsPdf(media, provider);
      return { media: { id: await uploadDocument(context, pdf), title: 'Carousel' } };
    }
    const images: { id: string; altText?: string }[] = [];
    for (const [index, item] of media.entries()) {
      const id = await uploadImage(context, item, index);
      images.push(item.alt === null || item.alt === '' ? { id } : { id, altText: item.alt });
    }
    return images.length === 1 ? { media: images[0] } : { multiImage: { images } };
  }

  async function publish(input: PublishInput): Promise<PublishResult> {
    const parsed = linkedinSettings.safeParse(input.settings);
    if (!parsed.success) throw refuse(`the LinkedIn settings are invalid: ${parsed.error.message}`);
    const settings = parsed.data;
    const who = await options.authorOf(input.channel);
    const commentary = escapeLittleText(input.content);
    const { checkpoint } = input;
    const context: UploadContext = {
      api, accessToken: who.accessToken, owner: who.author, checkpoint, wait: options.wait,
    };
    const content = await mediaContent(context, input.media, settings.carousel === true);

    const sentAt = checkpoint.values.postSentAt;
    const retrying = sentAt !== undefined;
    if (retrying) {
      const since = Date.parse(sentAt) - clockSkewMs;
      const latest = await latestPosts(who);
      const found = latest?.find((post) => post.commentary === commentary && (post.createdAt ?? 0) >= since);
      if (found !== undefined) return { releaseId: found.id, releaseURL: postUrl(found.id) };
      if (latest === null && commentary === '') {
        const message = 'an earlier attempt may have posted to LinkedIn, which lets SPS neither read the '
          + 'member\'s posts nor recognise a repeat of a post without text';
        throw new PlatformError({ kind: 'unconfirmed', provider, message });
      }
    }
    await checkpoint.save({ postSentAt: new Date().toISOString() });
    const visibility = options.allowVisibility ? settings.visibility ?? 'PUBLIC' : 'PUBLIC';
    const body = {
      author: who.author,
      commentary,
      visibility,
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      ...(content === undefined ? {} : { content }),
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: settings.isReshareDisabledByAuthor ?? false,
    };
    let urn: string;
    try {
      urn = await api.create(who.accessToken, '/rest/posts', body);
    } catch (error) {
      const earlier = error instanceof PlatformError ? duplicatedPostUrn(error.body) : null;
      // On a retry, the post LinkedIn calls this one a duplicate of is the one the lost attempt made.
      if (retrying && earlier !== null) return { releaseId: earlier, releaseURL: postUrl(earlier) };
      throw error;
    }
    if (!postUrn.safeParse(urn).success) throw unreadable(`a post id (${urn})`);
    return { releaseId: urn, releaseURL: postUrl(urn) };
  }

  async function postComments(who: LinkedinAuthor, parentUrn: string): Promise<z.infer<typeof commentAnswer>[] | null> {
    let raw: unknown;
    try {
      raw = await api.rest(who.accessToken, {
        method: 'GET', path: `/rest/socialActions/${encodeURIComponent(parentUrn)}/comments?count=100`,
      });
    } catch (error) {
      if (error instanceof PlatformError && isAccessDenied(error.httpStatus, error.body)) return null;
      throw error;
    }
    const page = commentsPage.safeParse(raw);
    if (!page.success) throw unreadable('the post\'s comments');
    return page.data.elements;
  }

  async function comment(input: CommentInput): Promise<PublishResult> {
    if (input.media.length > 0) throw refuse('LinkedIn comments are text only; SPS does not attach media to them');
    const who = await options.authorOf(input.channel);
    const parentUrn = input.parentReleaseId;
    const text = escapeLittleText(input.content);
    const result = (urn: string): PublishResult => ({ releaseId: urn, releaseURL: commentUrl(parentUrn, urn) });
    if (input.checkpoint.values.commentSentAt !== undefined) {
      const comments = await postComments(who, parentUrn);
      if (comments === null) {
        const message = 'an earlier attempt may have commented on LinkedIn, which does not let SPS read the comments';
        throw new PlatformError({ kind: 'unconfirmed', provider, message });
      }
      const found = comments.find((item) => item.actor === who.author && item.message?.text === text);
      const urn = found?.$URN ?? found?.commentUrn;
      if (urn !== undefined) return result(urn);
    }
    await input.checkpoint.save({ commentSentAt: new Date().toISOString() });
    const answer = commentAnswer.safeParse(await api.rest(who.accessToken, {
      method: 'POST',
      path: `/rest/socialActions/${encodeURIComponent(parentUrn)}/comments`,
      json: { actor: who.author, object: parentUrn, message: { text } },
    }));
    const urn = answer.data?.$URN ?? answer.data?.commentUrn;
    if (urn === undefined) throw unreadable('a comment');
    return result(urn);
  }

  async function recentContent(channel: ChannelCredentials): Promise<{ id: string; url: string }[]> {
    const who = await options.authorOf(channel);
    const latest = await latestPosts(who);
    if (latest === null) {
      throw refuse('LinkedIn does not let this app read the account\'s posts (a member\'s need r_member_social)');
    }
    return latest.filter((post) => post.lifecycleState === undefined || post.lifecycleState === 'PUBLISHED')
      .map((post) => ({ id: post.id, url: postUrl(post.id) }));
  }

  /**
   * DELETE /rest/posts/{urn} (Posts API, "Delete Posts": learn.microsoft.com/en-us/linkedin/marketing/
   * community-management/shares/posts-api#delete-posts), with the w_member_social or
   * w_organization_social the connect flows already ask for. LinkedIn answers 204, again 204 for a
   * post already deleted, and 404 for one that never was: removed either way (removedEvenIfGone).
   *
   * A later part is a comment on the first (comment() above): LinkedIn removes a post's comments
   * with the post, so the room declares `laterPartsGoWithFirst` (linkedin-removal.ts) and the
   * removal worker calls for the first part alone, settling the comments as the post went. A
   * comment URN handed here anyway is refused rather than reported removed.
   */
  async function remove(channel: ChannelCredentials, item: RemovalTarget): Promise<void> {
    if (!postUrn.safeParse(item.releaseId).success) throw refuse(`${item.releaseId} is not a LinkedIn post URN`);
    const who = await options.authorOf(channel);
    await removedEvenIfGone(() => api.rest(who.accessToken, {
      method: 'DELETE',
      path: `/rest/posts/${encodeURIComponent(item.releaseId)}`,
      headers: { 'X-RestLi-Method': 'DELETE' },
    }));
  }

  return { publish, comment, recentContent, remove };
}
