import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { graphParams, type GraphParams } from './graph-form.ts';
import type { GraphAnswer, GraphRequest } from './graph-http-server.ts';
import type {
  PublishingStep, SimulatedComment, SimulatedPhoto, SimulatedPost, SimulatedVideo,
} from './page-publishing-records.ts';
import {
  graphError, graphPath, graphTime, graphToken, requestedFields, unsupportedRequest,
} from './meta-graph-simulation.ts';

/**
 * What a Page publishes through the Graph API, as the Facebook simulator keeps it: feed posts
 * (`/{page-id}/feed` with message, link, attached_media), photos (`/{page-id}/photos`, multipart
 * `source`, published or not), videos (`/{page-id}/videos`, multipart `source`), comments
 * (`/{object-id}/comments`), the reads SPS makes of them (published posts, comments, counters,
 * insights), and their deletion (`DELETE /{object-id}`: `{success: true}`, the object gone).
 * Refusals are Graph's: HTTP 400 with a code, throttling included, and
 * `X-Business-Use-Case-Usage` on every Page-token answer.
 * Facts: ../shared/platforms/oauth-majors.md, sections 3.2 to 3.7.
 */

export interface PagePublishing {
  posts: SimulatedPost[];
  photos: SimulatedPhoto[];
  videos: SimulatedVideo[];
  comments: SimulatedComment[];
  /** The next publishing POSTs (feed, photos, videos, comments) and DELETEs meet these steps, in order. */
  failNext(...steps: PublishingStep[]): void;
  /** How many answers were lost on purpose after the work was done. */
  lostResponses(): number;
  /** Followers and likes of a Page, as `GET /{page-id}?fields=followers_count,fan_count` reads them. */
  setPageCounters(pageId: string, counters: { followers: number; fans: number }): void;
  pageCounters(pageId: string): { followers_count: number; fan_count: number };
  route(request: GraphRequest): GraphAnswer | undefined;
}

/** Graph's throttling answer: HTTP 400, a throttling code, and when access returns, in minutes. */
export function graphThrottle(code: number, pageId: string, minutes: number): SimulatedAnswer {
  const messages: Record<number, string> = {
    4: 'Application request limit reached',
    17: 'User request limit reached',
    32: 'Page request limit reached',
    613: 'Calls to this api have exceeded the rate limit.',
    80001: 'There have been too many calls to this Page account. Wait a bit and try again.',
  };
  const answer = graphError(`(#${String(code)}) ${messages[code] ?? 'Request limit reached'}`, code);
  const entry = { type: 'pages', call_count: 100, total_cputime: 40, total_time: 60 };
  const usage = { [pageId]: [{ ...entry, estimated_time_to_regain_access: minutes }] };
  return { ...answer, headers: { 'x-business-use-case-usage': JSON.stringify(usage) } };
}

/** Photos Graph takes, by their first bytes: JPEG, PNG, GIF, BMP, TIFF. */
function isPhoto(bytes: Buffer): boolean {
  const hex = bytes.subarray(0, 4).toString('hex');
  return hex.startsWith('ffd8ff') || hex === '89504e47' || hex.startsWith('47494638') || hex.startsWith('424d')
    || hex === '49492a00' || hex === '4d4d002a';
}

/** MP4 and QuickTime files start with an `ftyp` box. */
function isVideo(bytes: Buffer): boolean {
  return bytes.subarray(4, 8).toString('latin1') === 'ftyp';
}

/** Graph's photo size limit. */
const maxPhotoBytes = 4_000_000;

export interface PagePublishingDeps {
  /** The Page a Page token acts for, or Graph's refusal of the token. */
  pageOfToken(token: string | null): string | SimulatedAnswer;
  now(): number;
}

export function createPagePublishing(deps: PagePublishingDeps): PagePublishing {
  const posts: SimulatedPost[] = [];
  const photos: SimulatedPhoto[] = [];
  const videos: SimulatedVideo[] = [];
  const comments: SimulatedComment[] = [];
  const steps: PublishingStep[] = [];
  const counters = new Map<string, { followers: number; fans: number }>();
  const calls = new Map<string, number>();
  let lost = 0;
  let nextId = 100_000_000_000;
  const newId = () => String((nextId += 1));

  /** What every Page-token answer carries: the Page's usage, nothing to wait for. */
  function withUsage(pageId: string, answer: SimulatedAnswer): SimulatedAnswer {
    const count = (calls.get(pageId) ?? 0) + 1;
    calls.set(pageId, count);
    const usage = {
      [pageId]: [{
        type: 'pages', call_count: Math.min(count, 100), total_cputime: 1, total_time: 1,
        estimated_time_to_regain_access: 0,
      }],
    };
    return { ...answer, headers: { 'x-business-use-case-usage': JSON.stringify(usage), ...answer.headers } };
  }

  /** The Page named in the path must be the token's own Page. */
  function ownPage(request: GraphRequest, named: string): string | SimulatedAnswer {
    const pageId = deps.pageOfToken(graphToken(request));
    if (typeof pageId !== 'string') return pageId;
    if (named !== 'me' && named !== pageId) {
      return graphError('(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts '
        + 'as an admin with sufficient administrative permission', 200);
    }
    return pageId;
  }

  function photoFrom(pageId: string, params: GraphParams): SimulatedPhoto | SimulatedAnswer {
    const file = params.files.get('source');
    if (file === undefined) return graphError('(#324) Requires upload file', 324);
    if (!isPhoto(file.bytes) || file.bytes.length > maxPhotoBytes) {
      return graphError('Photos should be smaller than 4 MB and saved as JPG, PNG, GIF, BMP or TIFF files.', 100, {
        subcode: 1366046,
      });
    }
    const published = params.fields.get('published') !== 'false';
    return { id: newId(), pageId, file, published, alt: params.fields.get('alt_text_custom') ?? null, usedBy: null };
  }

  function newPost(pageId: string, fields: Partial<SimulatedPost>): SimulatedPost {
    const post: SimulatedPost = {
      id: `${pageId}_${newId()}`, pageId, message: '', link: null, photoIds: [], videoId: null, createdAt: deps.now(),
      reactions: 0, shares: 0, mediaViews: 0, uniqueMediaViews: 0, ...fields,
    };
    posts.push(post);
    return post;
  }

  function postPhoto(pageId: string, params: GraphParams): SimulatedAnswer {
    const photo = photoFrom(pageId, params);
    if ('status' in photo) return photo;
    photos.push(photo);
    if (!photo.published) return { status: 200, body: { id: photo.id } };
    const post = newPost(pageId, { message: params.fields.get('message') ?? '', photoIds: [photo.id] });
    photo.usedBy = post.id;
    return { status: 200, body: { id: photo.id, post_id: post.id } };
  }

  /**
   * `attached_media=[{"media_fbid":"..."}, ...]`, the list as JSON text (Graph's form of a list
   * param): unpublished photos of this Page, each used once.
   */
  function attachedPhotos(pageId: string, params: GraphParams): SimulatedPhoto[] | SimulatedAnswer {
    const text = params.fields.get('attached_media');
    if (text === undefined) return [];
    let listed: unknown;
    try {
      listed = JSON.parse(text);
    } catch {
      return graphError('(#100) param attached_media must be a JSON list', 100);
    }
    if (!Array.isArray(listed)) return graphError('(#100) param attached_media must be a JSON list', 100);
    const attached: SimulatedPhoto[] = [];
    for (const [index, entry] of (listed as unknown[]).entries()) {
      const fbid = typeof entry === 'object' && entry !== null && 'media_fbid' in entry ? entry.media_fbid : undefined;
      const photo = photos.find((candidate) => candidate.id === fbid && candidate.pageId === pageId);
      if (photo === undefined || photo.published) {
        return graphError(`(#100) param attached_media[${String(index)}] has an invalid media_fbid`, 100);
      }
      if (photo.usedBy !== null) return graphError('This photo was already posted.', 100, { subcode: 1366051 });
      attached.push(photo);
    }
    return attached;
  }

  function postFeed(pageId: string, params: GraphParams): SimulatedAnswer {
    const message = params.fields.get('message') ?? '';
    const link = params.fields.get('link') ?? null;
    if (link !== null && !/^https?:\/\/[^\s]+$/.test(link)) {
      return graphError('(#100) link URL is not properly formatted', 100);
    }
    const attached = attachedPhotos(pageId, params);
    if ('status' in attached) return attached;
    if (message === '' && link === null && attached.length === 0) {
      return graphError('(#100) Missing message or attachment', 100);
    }
    // Graph refuses a text post repeating the Page's last one.
    const last = posts.findLast((post) => post.pageId === pageId);
    if (attached.length === 0 && link === null && last !== undefined && message !== '' && last.message === message) {
      return graphError('(#506) Duplicate status message', 506);
    }
    const post = newPost(pageId, { message, link, photoIds: attached.map((photo) => photo.id) });
    for (const photo of attached) photo.usedBy = post.id;
    return { status: 200, body: { id: post.id } };
  }

  function postVideo(pageId: string, params: GraphParams): SimulatedAnswer {
    const file = params.files.get('source');
    if (file === undefined) return graphError('(#100) Missing source, file_url or fbuploader_video_file_chunk', 100);
    if (!isVideo(file.bytes)) {
      return graphError('The video file you selected is in a format that we don\'t support.', 352);
    }
    const description = params.fields.get('description') ?? '';
    const id = newId();
    const post = newPost(pageId, { message: description, videoId: id });
    const title = params.fields.get('title') ?? null;
    videos.push({ id, pageId, postId: post.id, file, title, description, createdAt: post.createdAt });
    return { status: 200, body: { id } };
  }

  /** The post, video or photo `id` names, as something that can be commented on. */
  function commentable(id: string): { pageId: string } | undefined {
    return posts.find((post) => post.id === id) ?? videos.find((video) => video.id === id);
  }

  function postComment(objectId: string, pageId: string, params: GraphParams): SimulatedAnswer {
    const target = commentable(objectId);
    if (target === undefined) return unsupportedRequest(objectId, 'post');
    const message = params.fields.get('message') ?? '';
    const attachmentId = params.fields.get('attachment_id') ?? null;
    let photo: SimulatedPhoto | undefined;
    if (attachmentId !== null) {
      photo = photos.find((candidate) => candidate.id === attachmentId && candidate.pageId === pageId);
      if (photo === undefined || photo.published || photo.usedBy !== null) {
        return graphError('(#100) param attachment_id must be an unpublished photo of the Page', 100);
      }
    }
    if (message === '' && photo === undefined) return graphError('(#100) Missing message or attachment', 100);
    const shortId = objectId.split('_').at(-1) ?? objectId;
    const comment: SimulatedComment = {
      id: `${shortId}_${newId()}`, objectId, pageId, message, photoId: photo?.id ?? null, createdAt: deps.now(),
    };
    if (photo !== undefined) photo.usedBy = comment.id;
    comments.push(comment);
    return { status: 200, body: { id: comment.id } };
  }

  function publish(request: GraphRequest, owner: string, edge: string): GraphAnswer {
    const params = graphParams(request);
    if (params === null) return graphError('(#100) The multipart body could not be read', 100);
    const step = steps.shift() ?? 'pass';
    if (step !== 'pass' && !('lose' in step)) return step;
    let answer: SimulatedAnswer;
    if (edge === 'comments') {
      const pageId = deps.pageOfToken(graphToken(request));
      if (typeof pageId !== 'string') return pageId;
      answer = postComment(owner, pageId, params);
    } else {
      const pageId = ownPage(request, owner);
      if (typeof pageId !== 'string') return pageId;
      if (edge === 'feed') answer = withUsage(pageId, postFeed(pageId, params));
      else if (edge === 'photos') answer = withUsage(pageId, postPhoto(pageId, params));
      else answer = withUsage(pageId, postVideo(pageId, params));
    }
    if (step !== 'pass' && answer.status === 200) {
      lost += 1;
      return { ...answer, lose: true };
    }
    return answer;
  }

  /**
   * DELETE /{id} with the Page's token: a post goes with its comments and its video, a video with
   * its post, a comment alone. An unknown id is Graph's 100/33 on HTTP 400; another Page's object
   * is a permissions refusal (#200).
   */
  function removeObject(request: GraphRequest, id: string): GraphAnswer {
    const step = steps.shift() ?? 'pass';
    if (step !== 'pass' && !('lose' in step)) return step;
    const pageId = deps.pageOfToken(graphToken(request));
    if (typeof pageId !== 'string') return pageId;
    const post = posts.find((candidate) => candidate.id === id || candidate.videoId === id);
    const comment = comments.find((candidate) => candidate.id === id);
    const owner = post?.pageId ?? comment?.pageId;
    if (owner === undefined) return unsupportedRequest(id, 'delete');
    if (owner !== pageId) return graphError('(#200) Permissions error', 200);
    const gone = new Set(post === undefined ? [id] : [id, post.id, post.videoId]);
    const keep = <T extends { id: string }>(items: T[], also: (item: T) => boolean = () => false) => {
      const kept = items.filter((item) => !gone.has(item.id) && !also(item));
      items.splice(0, items.length, ...kept);
    };
    keep(comments, (candidate) => gone.has(candidate.objectId));
    keep(videos);
    keep(posts);
    const answer = withUsage(pageId, { status: 200, body: { success: true } });
    if (step === 'pass') return answer;
    lost += 1;
    return { ...answer, lose: true };
  }

  function pick(node: Record<string, unknown>, request: GraphRequest): Record<string, unknown> {
    const fields = requestedFields(request);
    if (fields.size === 0) return node;
    const picked: Record<string, unknown> = { id: node.id };
    for (const field of fields.keys()) if (node[field] !== undefined) picked[field] = node[field];
    return picked;
  }

  function listed<T>(
    items: T[],
    request: GraphRequest,
    present: (item: T) => Record<string, unknown>,
  ): SimulatedAnswer {
    const limit = Math.min(Number(request.query.get('limit') ?? '25') || 25, 100);
    return { status: 200, body: { data: items.slice(0, limit).map((item) => pick(present(item), request)) } };
  }

  const presentPost = (post: SimulatedPost) => ({
    id: post.id,
    message: post.message === '' ? undefined : post.message,
    created_time: graphTime(post.createdAt),
    permalink_url: `https://www.facebook.com/${post.pageId}/posts/${post.id.split('_')[1] ?? ''}`,
  });

  function readPosts(request: GraphRequest, owner: string): SimulatedAnswer {
    const pageId = ownPage(request, owner);
    if (typeof pageId !== 'string') return pageId;
    const since = Number(request.query.get('since') ?? '0') * 1000;
    const found = posts.filter((post) => post.pageId === pageId && post.createdAt >= since).reverse();
    return withUsage(pageId, listed(found, request, presentPost));
  }

  function readVideos(request: GraphRequest, owner: string): SimulatedAnswer {
    const pageId = ownPage(request, owner);
    if (typeof pageId !== 'string') return pageId;
    const found = videos.filter((video) => video.pageId === pageId).reverse();
    return withUsage(pageId, listed(found, request, (video) => ({
      id: video.id, description: video.description, created_time: graphTime(video.createdAt),
    })));
  }

  function readComments(request: GraphRequest, objectId: string): SimulatedAnswer {
    const pageId = deps.pageOfToken(graphToken(request));
    if (typeof pageId !== 'string') return pageId;
    if (commentable(objectId) === undefined) return unsupportedRequest(objectId, 'post');
    const found = comments.filter((comment) => comment.objectId === objectId);
    if (request.query.get('order') === 'reverse_chronological') found.reverse();
    return withUsage(pageId, listed(found, request, (comment) => ({
      id: comment.id,
      message: comment.message,
      created_time: graphTime(comment.createdAt),
      from: { id: comment.pageId },
    })));
  }

  function readObject(request: GraphRequest, objectId: string): SimulatedAnswer | undefined {
    const post = posts.find((candidate) => candidate.id === objectId);
    const video = videos.find((candidate) => candidate.id === objectId);
    if (post === undefined && video === undefined) return undefined;
    const pageId = deps.pageOfToken(graphToken(request));
    if (typeof pageId !== 'string') return pageId;
    const subject = post ?? posts.find((candidate) => candidate.videoId === objectId);
    const commentCount = comments.filter((comment) => comment.objectId === objectId).length;
    const node: Record<string, unknown> = {
      id: objectId,
      reactions: { data: [], summary: { total_count: subject?.reactions ?? 0, viewer_reaction: 'NONE' } },
      comments: { data: [], summary: { order: 'ranked', total_count: commentCount, can_comment: true } },
    };
    if (post !== undefined) {
      Object.assign(node, presentPost(post));
      // Graph leaves `shares` out until someone shares the post; videos have no such field.
      if (post.shares > 0) node.shares = { count: post.shares };
    } else if (requestedFields(request).has('shares')) {
      return graphError('(#100) Tried accessing nonexisting field (shares) on node type (Video)', 100);
    }
    return withUsage(pageId, { status: 200, body: pick(node, request) });
  }

  function readInsights(request: GraphRequest, postId: string): SimulatedAnswer {
    const post = posts.find((candidate) => candidate.id === postId);
    if (post === undefined) return unsupportedRequest(postId, 'post');
    const pageId = deps.pageOfToken(graphToken(request));
    if (typeof pageId !== 'string') return pageId;
    const known: Record<string, number> = {
      post_media_view: post.mediaViews,
      post_total_media_view_unique: post.uniqueMediaViews,
    };
    const metrics = (request.query.get('metric') ?? '').split(',').filter((metric) => metric !== '');
    const unknown = metrics.find((metric) => !(metric in known));
    if (metrics.length === 0 || unknown !== undefined) {
      return graphError('(#100) The value must be a valid insights metric', 100);
    }
    const data = metrics.map((name) => ({
      name,
      period: 'lifetime',
      values: [{ value: known[name] }],
      title: name,
      id: `${postId}/insights/${name}/lifetime`,
    }));
    return withUsage(pageId, { status: 200, body: { data } });
  }

  return {
    posts,
    photos,
    videos,
    comments,
    failNext: (...added) => { steps.push(...added); },
    lostResponses: () => lost,
    setPageCounters: (pageId, values) => { counters.set(pageId, values); },
    pageCounters: (pageId) => {
      const values = counters.get(pageId) ?? { followers: 0, fans: 0 };
      return { followers_count: values.followers, fan_count: values.fans };
    },
    route(request) {
      const { rest } = graphPath(request.path);
      const edge = /^\/(me|\d+|\d+_\d+)\/(feed|photos|videos|comments|published_posts|posts|insights)$/.exec(rest);
      if (edge !== null) {
        const [, owner = '', name = ''] = edge;
        if (request.method === 'POST' && ['feed', 'photos', 'videos', 'comments'].includes(name)) {
          return publish(request, owner, name);
        }
        if (request.method !== 'GET') return undefined;
        if (name === 'published_posts' || name === 'posts') return readPosts(request, owner);
        if (name === 'videos') return readVideos(request, owner);
        if (name === 'comments') return readComments(request, owner);
        if (name === 'insights') return readInsights(request, owner);
        return undefined;
      }
      const object = /^\/(\d+_\d+|\d+)$/.exec(rest)?.[1];
      if (request.method === 'GET' && object !== undefined) return readObject(request, object);
      if (request.method === 'DELETE' && object !== undefined) return removeObject(request, object);
      return undefined;
    },
  };
}
