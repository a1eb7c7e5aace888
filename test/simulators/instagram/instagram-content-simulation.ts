import { formBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';
import {
  graphError, graphPath, graphTime, pickFields, requestedFields, unsupportedRequest,
} from '../facebook/meta-graph-simulation.ts';
import { instagramRefusal } from './instagram-refusal.ts';
import { fetchPulledMedia, type PulledMedia } from './pulled-media.ts';

/**
 * Instagram's content publishing as both of its hosts serve it (graph.facebook.com through
 * Facebook Login, graph.instagram.com through Instagram Login); each simulator says which account
 * a request's token acts for and routes the rest here:
 * - `POST /{ig-user-id}/media`: a container. Instagram fetches `image_url` / `video_url` itself
 *   (pulled-media.ts): an image at once (refused on the spot: not JPEG, over 8 MiB, unreachable),
 *   a video while the container is IN_PROGRESS (ERROR with the reason in `status`). REELS,
 *   STORIES, carousel items (`is_carousel_item`, `VIDEO` for videos) and CAROUSEL over 2 to 10
 *   finished items of the same account.
 * - `GET /{container-id}?fields=status_code,status`: IN_PROGRESS for `videoProcessingReads`
 *   reads of a video, then FINISHED; EXPIRED 24 hours after creation; PUBLISHED once published.
 * - `POST /{ig-user-id}/media_publish creation_id=`: the media, within 100 posts a rolling day.
 * - `GET /{media-id}` (permalink, caption, counts...), `GET /{ig-user-id}/media`,
 *   `POST|GET /{media-id}/comments`, `GET /{media-id}/insights`, `GET /{ig-user-id}` with its
 *   counters, `GET /{ig-user-id}/content_publishing_limit`.
 * Refusals in Meta's envelope, HTTP 400, with Instagram's codes and subcodes and a user message.
 * Assumed where Meta's pages do not say: publishing a container that is not FINISHED answers
 * 9007 (2207027 while in progress, 2207006 otherwise); an expired one -2 / 2207020.
 * Facts: ../shared/platforms/oauth-majors.md, sections 4.2-4.7; Meta's Instagram error codes page.
 */
export interface SimulatedInstagramProfile {
  id: string;
  username: string;
  name: string;
  profilePictureUrl: string;
  followersCount?: number;
  followsCount?: number;
}

type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';
type ContainerType = 'IMAGE' | 'VIDEO' | 'REELS' | 'STORIES' | 'CAROUSEL';

export interface SimulatedContainer {
  id: string;
  owner: string;
  mediaType: ContainerType;
  isCarouselItem: boolean;
  caption: string | null;
  children: string[];
  /** Every field the request carried (share_to_feed, thumb_offset, collaborators, alt_text...). */
  fields: Record<string, string>;
  /** What Instagram fetched from the media URL (null for a carousel). */
  pulled: PulledMedia | null;
  createdAt: number;
  readsUntilFinished: number;
  failure: string | null;
  mediaId: string | null;
}

export interface SimulatedInstagramMedia {
  id: string;
  owner: string;
  containerId: string;
  caption: string | null;
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  productType: 'FEED' | 'REELS' | 'STORY';
  timestamp: number;
  permalink: string;
  children: string[];
  likeCount: number;
  insights: Record<string, number>;
}

export interface SimulatedComment {
  id: string;
  mediaId: string;
  text: string;
  from: { id: string; username: string };
  timestamp: number;
}

/** Which publishing request an injected failure is for. */
export type ContentEndpoint = 'media' | 'media_publish' | 'comments' | 'status' | 'any';

/**
 * What the next matching request gets instead of the normal answer: `answer` (nothing is done),
 * or `loseResponse`, where the work is done and the answer never comes, as when the connection
 * breaks after Instagram accepted.
 */
export type InjectedContentFailure =
  | { on: ContentEndpoint; answer: SimulatedAnswer }
  | { on: 'media' | 'media_publish' | 'comments'; loseResponse: true };

/** The token's account, a refusal of the token, or null when the host serves the request itself. */
export type ActingAccount = (request: SimulatedRequest) => Promise<string | SimulatedAnswer | null>;

export interface ContentSimulationOptions {
  /** The simulated clock shared with the host's tokens. */
  now: () => number;
  actingAccount: ActingAccount;
  /** Status reads a video container stays IN_PROGRESS (default 1). */
  videoProcessingReads?: number;
}

const day = 24 * 3600 * 1000;
const publishingQuota = 100;
const maxCarouselItems = 10;

/** A throttling refusal with the reset Meta gives in `X-Business-Use-Case-Usage` (minutes). */
export function throttledAnswer(accountId: string, minutes: number, code = 80002): SimulatedAnswer {
  const refusal = graphError('Application request limit reached', code, { type: 'OAuthException' });
  const usage = {
    [accountId]: [{
      type: 'instagram', call_count: 100, total_cputime: 40, total_time: 60, estimated_time_to_regain_access: minutes,
    }],
  };
  return { ...refusal, headers: { 'x-business-use-case-usage': JSON.stringify(usage) } };
}

const missingParameter = (name: string): SimulatedAnswer => graphError(`(#100) The parameter ${name} is required`, 100);

/** Graph takes `access_token` from a POST's form as well as from the query: the token readers look at the query. */
function withFormToken(request: SimulatedRequest): SimulatedRequest {
  const token = request.method === 'POST' ? formBody(request).get('access_token') : null;
  if (token === null || request.query.has('access_token')) return request;
  const query = new URLSearchParams(request.query);
  query.set('access_token', token);
  return { ...request, query };
}

export class InstagramContentSimulation {
  readonly profiles = new Map<string, SimulatedInstagramProfile>();
  readonly containers = new Map<string, SimulatedContainer>();
  readonly media: SimulatedInstagramMedia[] = [];
  readonly comments: SimulatedComment[] = [];
  /** Every media_publish request, refused ones too, in order. */
  readonly publishRequests: string[] = [];
  lostResponses = 0;
  videoProcessingReads: number;
  readonly #options: ContentSimulationOptions;
  readonly #failures: InjectedContentFailure[] = [];
  #nextId = 1;

  constructor(options: ContentSimulationOptions) {
    this.#options = options;
    this.videoProcessingReads = options.videoProcessingReads ?? 1;
  }

  addProfile(profile: SimulatedInstagramProfile): void {
    this.profiles.set(profile.id, profile);
  }

  /** Failures for the next matching requests, in order. */
  failNext(...failures: InjectedContentFailure[]): void {
    this.#failures.push(...failures);
  }

  /** The media published with this caption, oldest first. */
  mediaWithCaption(caption: string): SimulatedInstagramMedia[] {
    return this.media.filter((item) => item.caption === caption);
  }

  /** Ages a container past its 24 hours. */
  expire(containerId: string): void {
    const container = this.containers.get(containerId);
    if (container !== undefined) container.createdAt -= day + 1;
  }

  /** The answer to a content request, or undefined when the path is not one (the host answers it). */
  async route(request: SimulatedRequest): Promise<SimulatedAnswer | undefined> {
    const match = /^\/(\d+)(?:\/([a-z_]+))?$/.exec(graphPath(request.path).rest);
    const [, id = '', edge] = match ?? [];
    if (match === null || !this.#knows(id)) return undefined;
    const acting = await this.#options.actingAccount(withFormToken(request));
    if (acting === null) return undefined;
    if (typeof acting !== 'string') return acting;
    const endpoint = this.#endpointOf(request.method, id, edge);
    if (endpoint === null) return graphError(`Unknown path components: /${edge ?? ''}`, 2500);
    const failure = this.#takeFailure(endpoint);
    if (failure !== undefined && 'answer' in failure) return failure.answer;
    const answer = await this.#answer(request, acting, id, edge);
    if (failure !== undefined && answer.status === 200) {
      this.lostResponses += 1;
      // Done and kept; the client never hears so and gives up on its own timeout.
      return new Promise<SimulatedAnswer>(() => undefined);
    }
    return answer;
  }

  #knows(id: string): boolean {
    return this.profiles.has(id) || this.containers.has(id) || this.media.some((item) => item.id === id);
  }

  #endpointOf(method: string, id: string, edge: string | undefined): ContentEndpoint | null {
    if (method === 'POST' && edge === 'media') return 'media';
    if (method === 'POST' && edge === 'media_publish') return 'media_publish';
    if (method === 'POST' && edge === 'comments') return 'comments';
    if (method === 'GET' && edge === undefined && this.containers.has(id)) return 'status';
    if (method === 'GET') return 'any';
    return null;
  }

  #takeFailure(endpoint: ContentEndpoint): InjectedContentFailure | undefined {
    const [next] = this.#failures;
    if (next === undefined || (next.on !== 'any' && next.on !== endpoint)) return undefined;
    return this.#failures.shift();
  }

  #newId(prefix: string): string {
    const id = `${prefix}${String(this.#nextId).padStart(8, '0')}`;
    this.#nextId += 1;
    return id;
  }

  async #answer(
    request: SimulatedRequest,
    acting: string,
    id: string,
    edge: string | undefined,
  ): Promise<SimulatedAnswer> {
    const fields = new URLSearchParams([...request.query, ...formBody(request)]);
    const ownAccount = this.profiles.has(id);
    if (ownAccount && id !== acting) return unsupportedRequest(id);
    if (request.method === 'POST' && edge === 'media' && ownAccount) return this.#createContainer(acting, fields);
    if (request.method === 'POST' && edge === 'media_publish' && ownAccount) return this.#publish(acting, fields);
    if (request.method === 'GET' && edge === 'media' && ownAccount) return this.#listMedia(acting, request);
    if (request.method === 'GET' && edge === 'content_publishing_limit' && ownAccount) return this.#limit(acting);
    if (request.method === 'GET' && edge === undefined && ownAccount) return this.#profile(acting, request);
    const container = this.containers.get(id);
    if (container !== undefined) {
      if (container.owner !== acting) return unsupportedRequest(id);
      if (request.method === 'GET' && edge === undefined) return this.#containerNode(container, request);
      return graphError(`Unknown path components: /${edge ?? ''}`, 2500);
    }
    const media = this.media.find((item) => item.id === id);
    if (media === undefined || media.owner !== acting) return unsupportedRequest(id);
    if (request.method === 'GET' && edge === undefined) return this.#mediaNode(media, request);
    if (edge === 'comments' && request.method === 'POST') return this.#comment(media, acting, fields);
    if (edge === 'comments' && request.method === 'GET') return this.#listComments(media, request);
    if (edge === 'insights' && request.method === 'GET') return this.#insights(media, fields);
    return graphError(`Unknown path components: /${edge ?? ''}`, 2500);
  }

  #status(container: SimulatedContainer): ContainerStatus {
    if (container.mediaId !== null) return 'PUBLISHED';
    if (container.failure !== null) return 'ERROR';
    if (this.#options.now() - container.createdAt > day) return 'EXPIRED';
    return container.readsUntilFinished > 0 ? 'IN_PROGRESS' : 'FINISHED';
  }

  async #createContainer(owner: string, fields: URLSearchParams): Promise<SimulatedAnswer> {
    const type = fields.get('media_type') ?? 'IMAGE';
    const isCarouselItem = fields.get('is_carousel_item') === 'true';
    if (!['IMAGE', 'VIDEO', 'REELS', 'STORIES', 'CAROUSEL'].includes(type)) {
      const message = 'The media type entered is not one of the expected types.';
      return instagramRefusal('Invalid parameter', { code: 100, subcode: 2207023 }, { message });
    }
    const mediaType = type as ContainerType;
    if (mediaType === 'VIDEO' && !isCarouselItem) {
      return graphError('(#100) The VIDEO media type is no longer supported; use REELS', 100);
    }
    if (isCarouselItem && (mediaType === 'REELS' || mediaType === 'STORIES' || mediaType === 'CAROUSEL')) {
      return graphError(`(#100) A carousel item cannot be ${mediaType}`, 100);
    }
    const base = {
      id: this.#newId('1790000'),
      owner,
      mediaType,
      isCarouselItem,
      caption: fields.get('caption'),
      children: [] as string[],
      fields: Object.fromEntries(fields),
      pulled: null as PulledMedia | null,
      createdAt: this.#options.now(),
      readsUntilFinished: 0,
      failure: null as string | null,
      mediaId: null,
    };
    delete base.fields.access_token;
    if (mediaType === 'CAROUSEL') {
      const children = (fields.get('children') ?? '').split(',').filter((child) => child !== '');
      const refused = this.#checkChildren(owner, children);
      if (refused !== null) return refused;
      return this.#store({ ...base, children });
    }
    const imageUrl = fields.get('image_url');
    const videoUrl = fields.get('video_url');
    const wantsVideo = mediaType === 'VIDEO' || mediaType === 'REELS';
    if (wantsVideo && videoUrl === null) return missingParameter('video_url');
    if (mediaType === 'IMAGE' && imageUrl === null) return missingParameter('image_url');
    if (mediaType === 'STORIES' && imageUrl === null && videoUrl === null) {
      return missingParameter('image_url or video_url');
    }
    if (videoUrl !== null) {
      const pulled = await fetchPulledMedia(videoUrl, 'video');
      // Instagram reports what went wrong with a video on the container, not on this request.
      return this.#store({ ...base, pulled, failure: pulled.problem, readsUntilFinished: this.videoProcessingReads });
    }
    const pulled = await fetchPulledMedia(imageUrl ?? '', 'image');
    if (pulled.refusal !== null) return pulled.refusal;
    return this.#store({ ...base, pulled });
  }

  #checkChildren(owner: string, children: string[]): SimulatedAnswer | null {
    const invalid = (message: string) =>
      instagramRefusal('Invalid parameter', { code: 100, subcode: 2207028 }, { message });
    if (children.length < 2 || children.length > maxCarouselItems) {
      return invalid(`A carousel takes 2 to ${String(maxCarouselItems)} items; ${String(children.length)} were given.`);
    }
    for (const child of children) {
      const item = this.containers.get(child);
      if (item?.owner !== owner || !item.isCarouselItem) {
        return invalid(`${child} is not a carousel item of this account.`);
      }
      if (this.#status(item) !== 'FINISHED') return invalid(`The carousel item ${child} is not ready.`);
    }
    return null;
  }

  #store(container: SimulatedContainer): SimulatedAnswer {
    this.containers.set(container.id, container);
    return { status: 200, body: { id: container.id } };
  }

  #containerNode(container: SimulatedContainer, request: SimulatedRequest): SimulatedAnswer {
    const code = this.#status(container);
    if (code === 'IN_PROGRESS') container.readsUntilFinished -= 1;
    let status: string = code;
    if (code === 'ERROR') status = `Error: ${container.failure ?? ''}`;
    if (code === 'IN_PROGRESS') status = 'In Progress';
    const node = { id: container.id, status_code: code, status };
    return { status: 200, body: pickFields(node, [...requestedFields(request).keys()]) };
  }

  #publish(owner: string, fields: URLSearchParams): SimulatedAnswer {
    const creationId = fields.get('creation_id');
    this.publishRequests.push(creationId ?? '');
    if (creationId === null) return missingParameter('creation_id');
    const container = this.containers.get(creationId);
    if (container?.owner !== owner || container.isCarouselItem) return unsupportedRequest(creationId);
    const code = this.#status(container);
    if (code === 'EXPIRED') {
      const message = 'The media you are trying to access has expired. Please try to upload again.';
      return instagramRefusal('Media expired', { code: -2, subcode: 2207020 }, { message });
    }
    if (code === 'IN_PROGRESS') {
      const message = 'The media is not ready for publishing, please wait for a moment';
      return instagramRefusal('Media ID is not available', { code: 9007, subcode: 2207027 }, { message });
    }
    if (code !== 'FINISHED') {
      const message = `The media ${creationId} cannot be published (${code}).`;
      return instagramRefusal('Media ID is not available', { code: 9007, subcode: 2207006 }, { message });
    }
    const since = this.#options.now() - day;
    if (this.media.filter((item) => item.owner === owner && item.timestamp > since).length >= publishingQuota) {
      const message = 'You reached maximum number of posts that is allowed to be published by Content Publishing API.';
      return instagramRefusal('Application request limit reached', { code: 9, subcode: 2207042 }, { message });
    }
    const media = this.#mediaFrom(container);
    this.media.push(media);
    container.mediaId = media.id;
    return { status: 200, body: { id: media.id } };
  }

  #mediaFrom(container: SimulatedContainer): SimulatedInstagramMedia {
    const id = this.#newId('1800000');
    const shortcode = Buffer.from(id).toString('base64url').slice(0, 11);
    const username = this.profiles.get(container.owner)?.username ?? container.owner;
    const story = container.mediaType === 'STORIES';
    const reel = container.mediaType === 'REELS';
    const video = reel || container.pulled?.kind === 'video';
    let permalink = `https://www.instagram.com/p/${shortcode}/`;
    if (reel) permalink = `https://www.instagram.com/reel/${shortcode}/`;
    if (story) permalink = `https://www.instagram.com/stories/${username}/${id}/`;
    return {
      id,
      owner: container.owner,
      containerId: container.id,
      caption: story ? null : container.caption,
      mediaType: container.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : video ? 'VIDEO' : 'IMAGE',
      productType: story ? 'STORY' : reel ? 'REELS' : 'FEED',
      timestamp: this.#options.now(),
      permalink,
      children: container.children,
      likeCount: 0,
      insights: { reach: 0, saved: 0, shares: 0, views: 0 },
    };
  }

  #mediaNode(media: SimulatedInstagramMedia, request: SimulatedRequest): SimulatedAnswer {
    const profile = this.profiles.get(media.owner);
    const node = {
      id: media.id,
      caption: media.caption ?? undefined,
      media_type: media.mediaType,
      media_product_type: media.productType,
      permalink: media.permalink,
      timestamp: graphTime(media.timestamp),
      username: profile?.username,
      like_count: media.likeCount,
      comments_count: this.comments.filter((comment) => comment.mediaId === media.id).length,
    };
    return { status: 200, body: pickFields(node, [...requestedFields(request).keys()]) };
  }

  #listMedia(owner: string, request: SimulatedRequest): SimulatedAnswer {
    const limit = Math.min(Number(request.query.get('limit') ?? '25') || 25, 100);
    const feed = this.media.filter((item) => item.owner === owner && item.productType !== 'STORY').reverse();
    const data = feed.slice(0, limit).map((item) => this.#mediaNode(item, request).body);
    return { status: 200, body: { data, paging: { cursors: { before: '0', after: String(data.length) } } } };
  }

  #limit(owner: string): SimulatedAnswer {
    const since = this.#options.now() - day;
    const used = this.media.filter((item) => item.owner === owner && item.timestamp > since).length;
    const body = { data: [{ quota_usage: used, config: { quota_total: publishingQuota, quota_duration: 86400 } }] };
    return { status: 200, body };
  }

  #profile(owner: string, request: SimulatedRequest): SimulatedAnswer {
    const profile = this.profiles.get(owner);
    if (profile === undefined) return unsupportedRequest(owner);
    const node = {
      id: profile.id,
      user_id: profile.id,
      username: profile.username,
      name: profile.name,
      profile_picture_url: profile.profilePictureUrl,
      followers_count: profile.followersCount ?? 0,
      follows_count: profile.followsCount ?? 0,
      media_count: this.media.filter((item) => item.owner === owner && item.productType !== 'STORY').length,
    };
    return { status: 200, body: pickFields(node, [...requestedFields(request).keys()]) };
  }

  #comment(media: SimulatedInstagramMedia, author: string, fields: URLSearchParams): SimulatedAnswer {
    const text = fields.get('message');
    if (text === null || text === '') return missingParameter('message');
    if (Array.from(text).length > 2200) return graphError('(#100) The comment is too long', 100);
    const username = this.profiles.get(author)?.username ?? author;
    const comment = {
      id: this.#newId('1795000'),
      mediaId: media.id,
      text,
      from: { id: author, username },
      timestamp: this.#options.now(),
    };
    this.comments.push(comment);
    return { status: 200, body: { id: comment.id } };
  }

  #listComments(media: SimulatedInstagramMedia, request: SimulatedRequest): SimulatedAnswer {
    const fields = [...requestedFields(request).keys()];
    const data = this.comments.filter((comment) => comment.mediaId === media.id).reverse().map((comment) => pickFields({
      id: comment.id,
      text: comment.text,
      timestamp: graphTime(comment.timestamp),
      username: comment.from.username,
      from: comment.from,
    }, fields));
    return { status: 200, body: { data } };
  }

  #insights(media: SimulatedInstagramMedia, fields: URLSearchParams): SimulatedAnswer {
    const metrics = (fields.get('metric') ?? '').split(',').filter((metric) => metric !== '');
    if (metrics.length === 0) return missingParameter('metric');
    for (const metric of metrics) {
      if (media.insights[metric] === undefined) {
        const known = Object.keys(media.insights).join(', ');
        return graphError(`(#100) metric[0] must be one of the following values: ${known}`, 100);
      }
    }
    const data = metrics.map((name) => ({
      name,
      period: 'lifetime',
      values: [{ value: media.insights[name] ?? 0 }],
      title: name,
      id: `${media.id}/insights/${name}/lifetime`,
    }));
    return { status: 200, body: { data } };
  }
}
