import { randomBytes } from 'node:crypto';
import {
  graphError, graphParameters, graphToken, pickFields, requestedFields, unsupportedRequest,
} from '../facebook/meta-graph-simulation.ts';
import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { pullMedia, type PulledMedia } from './pulled-media.ts';
import { deleteThread } from './threads-deletion.ts';
import { invalidParameter, missingPermission } from './threads-graph-answers.ts';
import {
  presentThread, type ContainerStatus, type PublishingEndpoint, type PublishingQuota, type PublishingStep,
  type SimulatedContainer, type SimulatedThread,
} from './threads-records.ts';
import { ThreadsInsights, type MediaMetric, type UserInsights } from './threads-insights.ts';

/**
 * The publishing half of the simulated graph.threads.net: media containers (`POST
 * /{user}/threads`), their status (`GET /{container}?fields=status,error_message`), publishing
 * (`POST /{user}/threads_publish`), the user's threads and replies, the publishing quota and the
 * insights. Media are pulled from `image_url` / `video_url` over HTTP and judged by their bytes.
 * Facts: ../shared/platforms/oauth-majors.md, sections 3.5 and 6.2-6.7.
 */

/** The image and video limits Meta's spec table gives (section 6.3). */
const maxImageBytes = 8 * 1024 * 1024;
const maxVideoBytes = 1024 * 1024 * 1024;
const maxTextCharacters = 500;
const containerLifetimeMs = 24 * 3600 * 1000;
const replyControls = [
  'everyone', 'accounts_you_follow', 'mentioned_only', 'parent_post_author_only', 'followers_only',
];

/** Who the request acts for, and the scopes the token carries; a refusal when the token is no good. */
export type TokenCheck = { user: string; username: string; scopes: readonly string[] } | SimulatedAnswer;

export interface PublishingDeps {
  now: () => number;
  check(token: string | null): TokenCheck;
}

export class ThreadsPublishing {
  readonly containers = new Map<string, SimulatedContainer>();
  readonly threads: SimulatedThread[] = [];
  readonly #insights: ThreadsInsights;
  readonly #quotas = new Map<string, PublishingQuota>();
  readonly #steps: { endpoint: PublishingEndpoint; step: PublishingStep | 'pass' }[] = [];
  readonly #deps: PublishingDeps;
  #nextId = 17_890_000_000_000_000n;
  /** Status reads a video answers IN_PROGRESS before its outcome. */
  videoPollsInProgress = 1;
  lostResponses = 0;

  constructor(deps: PublishingDeps) {
    this.#deps = deps;
    this.#insights = new ThreadsInsights(() => deps.now());
  }

  /** Steps for the next requests to `endpoint`, in order; 'pass' lets one through untouched. */
  failNext(endpoint: PublishingEndpoint, ...steps: (PublishingStep | 'pass')[]): void {
    for (const step of steps) this.#steps.push({ endpoint, step });
  }

  setQuota(user: string, quota: PublishingQuota): void {
    this.#quotas.set(user, quota);
  }

  setMediaInsights(mediaId: string, counters: Partial<Record<MediaMetric, number>>): void {
    this.#insights.setMedia(mediaId, counters);
  }

  setUserInsights(user: string, insights: UserInsights): void {
    this.#insights.setUser(user, insights);
  }

  /** Ages a container past its 24 hours, as one left unpublished that long. */
  expire(containerId: string): void {
    const container = this.containers.get(containerId);
    if (container !== undefined) container.createdAt -= containerLifetimeMs;
  }

  #id(): string {
    this.#nextId += 1n;
    return this.#nextId.toString();
  }

  #step(endpoint: PublishingEndpoint): PublishingStep | 'pass' {
    const index = this.#steps.findIndex((candidate) => candidate.endpoint === endpoint);
    if (index === -1) return 'pass';
    return this.#steps.splice(index, 1)[0]?.step ?? 'pass';
  }

  #lose(): Promise<SimulatedAnswer> {
    this.lostResponses += 1;
    // Stored already; the answer never comes and the client gives up on its own timeout.
    return new Promise<SimulatedAnswer>(() => undefined);
  }

  /** Undefined when the path is none of the publishing API's. */
  route(request: SimulatedRequest, rest: string): SimulatedAnswer | Promise<SimulatedAnswer> | undefined {
    const match = /^\/([A-Za-z0-9_]+)(?:\/([a-z_]+))?$/.exec(rest);
    if (match === null) return undefined;
    const [, node = '', edge] = match;
    const parameters = graphParameters(request);
    const checked = this.#deps.check(graphToken(request, parameters));
    if (!('user' in checked)) return checked;
    const me = node === 'me' || node === checked.user;
    const get = request.method === 'GET';
    const post = request.method === 'POST';

    if (edge === undefined && get && node !== 'me') return this.#readNode(request, node, checked);
    if (edge === undefined && request.method === 'DELETE' && !me) {
      return this.#withScope(checked, 'threads_delete', () => deleteThread(this.threads, node, checked.user));
    }
    if (edge === 'threads' && me && post) return this.#createContainer(parameters, checked);
    if (edge === 'threads' && me && get) return this.#list(request, checked, false);
    if (edge === 'replies' && me && get) {
      return this.#withScope(checked, 'threads_read_replies', () => this.#list(request, checked, true));
    }
    if (edge === 'threads_publish' && me && post) return this.#publish(parameters, checked);
    if (edge === 'threads_publishing_limit' && me && get) return this.#limits(request, checked.user);
    if (edge === 'threads_insights' && me && get) {
      const answer = () => this.#insights.userAnswer(parameters, checked.user);
      return this.#withScope(checked, 'threads_manage_insights', answer);
    }
    if (edge === 'insights' && get && !me) {
      const read = () => this.#mediaInsightsOf(parameters, node, checked.user);
      return this.#withScope(checked, 'threads_manage_insights', read);
    }
    if (edge !== undefined && !me && /^\d+$/.test(node) && !this.#isKnown(node)) return unsupportedRequest(node);
    return undefined;
  }

  #isKnown(id: string): boolean {
    return this.containers.has(id) || this.threads.some((thread) => thread.id === id);
  }

  #withScope(
    checked: { scopes: readonly string[] },
    scope: string,
    answer: () => SimulatedAnswer | Promise<SimulatedAnswer>,
  ): SimulatedAnswer | Promise<SimulatedAnswer> {
    return checked.scopes.includes(scope) ? answer() : missingPermission();
  }

  #statusOf(container: SimulatedContainer): ContainerStatus {
    if (container.status === 'IN_PROGRESS' || container.status === 'FINISHED') {
      if (this.#deps.now() - container.createdAt >= containerLifetimeMs) container.status = 'EXPIRED';
    }
    return container.status;
  }

  #readNode(request: SimulatedRequest, id: string, checked: { user: string; username: string }): SimulatedAnswer {
    const container = this.containers.get(id);
    if (container !== undefined && container.owner === checked.user) {
      const step = this.#step('status');
      if (step !== 'pass' && !('loseResponse' in step)) return step;
      if (container.status === 'IN_PROGRESS') {
        if (container.pollsInProgress > 0) container.pollsInProgress -= 1;
        else {
          container.status = container.outcome.status;
          container.errorMessage = container.outcome.status === 'ERROR' ? container.outcome.errorMessage : null;
        }
      }
      const node = { id, status: this.#statusOf(container), error_message: container.errorMessage ?? undefined };
      return { status: 200, body: pickFields(node, [...requestedFields(request).keys()]) };
    }
    const thread = this.threads.find((candidate) => candidate.id === id);
    if (thread === undefined || thread.owner !== checked.user) return unsupportedRequest(id);
    const fields = [...requestedFields(request).keys()];
    return { status: 200, body: pickFields(presentThread(thread, checked.username), fields) };
  }

  /** `GET /me/threads` (posts) or `/me/replies` (replies), newest first, `limit` at most 100. */
  #list(request: SimulatedRequest, owner: { user: string; username: string }, replies: boolean): SimulatedAnswer {
    const limit = Math.min(100, Number(request.query.get('limit') ?? '25') || 25);
    const fields = [...requestedFields(request).keys()];
    const items = this.threads
      .filter((thread) => thread.owner === owner.user && (thread.replyToId !== null) === replies)
      .sort((a, b) => b.timestamp - a.timestamp || Number(BigInt(b.id) - BigInt(a.id)))
      .slice(0, limit)
      .map((thread) => pickFields(presentThread(thread, owner.username), fields));
    return { status: 200, body: { data: items } };
  }

  async #createContainer(
    parameters: URLSearchParams,
    checked: { user: string; scopes: readonly string[] },
  ): Promise<SimulatedAnswer> {
    const step = this.#step('threads');
    if (step !== 'pass' && !('loseResponse' in step)) return step;
    if (!checked.scopes.includes('threads_content_publish')) return missingPermission();
    const made = await this.#container(parameters, checked);
    if (!('id' in made)) return made;
    this.containers.set(made.id, made);
    if (step !== 'pass') return this.#lose();
    return { status: 200, body: { id: made.id } };
  }

  async #container(
    parameters: URLSearchParams,
    checked: { user: string; scopes: readonly string[] },
  ): Promise<SimulatedContainer | SimulatedAnswer> {
    const mediaType = parameters.get('media_type');
    if (mediaType !== 'TEXT' && mediaType !== 'IMAGE' && mediaType !== 'VIDEO' && mediaType !== 'CAROUSEL') {
      return invalidParameter('Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}');
    }
    const text = parameters.get('text') ?? '';
    if (Array.from(text).length > maxTextCharacters) {
      return invalidParameter(`Param text must be at most ${String(maxTextCharacters)} characters long`);
    }
    if (mediaType === 'TEXT' && text.trim() === '') return invalidParameter('Param text is required for a TEXT post');
    const isCarouselItem = parameters.get('is_carousel_item') === 'true';
    if (isCarouselItem && mediaType !== 'IMAGE' && mediaType !== 'VIDEO') {
      return invalidParameter('Only IMAGE and VIDEO containers can be carousel items');
    }
    const replyToId = parameters.get('reply_to_id');
    if (replyToId !== null) {
      if (!checked.scopes.includes('threads_manage_replies')) return missingPermission();
      if (!this.threads.some((thread) => thread.id === replyToId)) {
        return invalidParameter(`Param reply_to_id: the post ${replyToId} does not exist`);
      }
    }
    const replyControl = parameters.get('reply_control');
    if (replyControl !== null && !replyControls.includes(replyControl)) {
      return invalidParameter(`Param reply_control must be one of {${replyControls.join(', ')}}`);
    }
    const linkAttachment = parameters.get('link_attachment');
    if (linkAttachment !== null && mediaType !== 'TEXT') {
      return invalidParameter('Param link_attachment is only allowed on a TEXT post');
    }
    const quotePostId = parameters.get('quote_post_id');
    if (quotePostId !== null && !this.threads.some((thread) => thread.id === quotePostId)) {
      return invalidParameter(`Param quote_post_id: the post ${quotePostId} does not exist`);
    }
    const topicTag = parameters.get('topic_tag');
    if (topicTag !== null && (topicTag.length > 50 || /[.&]/.test(topicTag))) {
      return invalidParameter('Param topic_tag must be 1-50 characters without periods or ampersands');
    }
    const base: SimulatedContainer = {
      id: this.#id(),
      owner: checked.user,
      mediaType,
      text,
      imageUrl: null,
      videoUrl: null,
      altText: parameters.get('alt_text'),
      isCarouselItem,
      children: [],
      replyToId,
      replyControl,
      topicTag,
      linkAttachment,
      quotePostId,
      status: 'FINISHED',
      errorMessage: null,
      pollsInProgress: 0,
      outcome: { status: 'FINISHED' },
      createdAt: this.#deps.now(),
      mediaId: null,
    };
    if (mediaType === 'IMAGE') return this.#imageContainer(base, parameters.get('image_url'));
    if (mediaType === 'VIDEO') return this.#videoContainer(base, parameters.get('video_url'));
    if (mediaType === 'CAROUSEL') return this.#carouselContainer(base, parameters.get('children'));
    return base;
  }

  async #imageContainer(base: SimulatedContainer, url: string | null): Promise<SimulatedContainer | SimulatedAnswer> {
    if (url === null || !/^https?:\/\//.test(url)) return invalidParameter('Param image_url must be a URL');
    const pulled = await pullMedia(url, maxImageBytes);
    if (!pulled.ok && pulled.reason === 'unreachable') {
      return graphError(`The media could not be fetched from this URI: ${url}`, 100, { subcode: 2207052 });
    }
    if (!pulled.ok) return graphError('The image is larger than 8 MB', 100, { subcode: 2207004 });
    if (pulled.format !== 'jpeg' && pulled.format !== 'png') {
      return graphError('The image format is not supported; use JPEG or PNG', 100, { subcode: 2207005 });
    }
    return { ...base, imageUrl: url };
  }

  async #videoContainer(base: SimulatedContainer, url: string | null): Promise<SimulatedContainer | SimulatedAnswer> {
    if (url === null || !/^https?:\/\//.test(url)) return invalidParameter('Param video_url must be a URL');
    // Threads answers at once and processes the video afterwards: the outcome shows in the status.
    const pulled: PulledMedia = await pullMedia(url, maxVideoBytes);
    const failed = (errorMessage: string): SimulatedContainer['outcome'] => ({ status: 'ERROR', errorMessage });
    let outcome: SimulatedContainer['outcome'] = { status: 'FINISHED' };
    if (!pulled.ok && pulled.reason === 'too_large') outcome = failed('FAILED_PROCESSING_VIDEO');
    else if (!pulled.ok) outcome = failed('FAILED_DOWNLOADING_VIDEO');
    else if (pulled.format !== 'mp4') outcome = failed('FAILED_PROCESSING_VIDEO');
    return { ...base, videoUrl: url, status: 'IN_PROGRESS', pollsInProgress: this.videoPollsInProgress, outcome };
  }

  #carouselContainer(base: SimulatedContainer, children: string | null): SimulatedContainer | SimulatedAnswer {
    const ids = (children ?? '').split(',').filter((id) => id !== '');
    if (ids.length < 2 || ids.length > 20) return invalidParameter('Param children must name 2 to 20 carousel items');
    for (const id of ids) {
      const child = this.containers.get(id);
      if (child?.owner !== base.owner || !child.isCarouselItem) {
        return invalidParameter(`Param children: ${id} is not a carousel item container`);
      }
      if (this.#statusOf(child) !== 'FINISHED') {
        return graphError(`The carousel item ${id} is not ready (${child.status})`, 9007, { subcode: 2207027 });
      }
    }
    return { ...base, children: ids };
  }

  #quotaOf(user: string): PublishingQuota {
    return this.#quotas.get(user) ?? { posts: 250, replies: 1000, durationSeconds: 86400 };
  }

  #usage(user: string): { posts: number; replies: number } {
    const since = this.#deps.now() - this.#quotaOf(user).durationSeconds * 1000;
    const recent = this.threads.filter((thread) => thread.owner === user && thread.timestamp > since);
    const replies = recent.filter((thread) => thread.replyToId !== null).length;
    return { posts: recent.length - replies, replies };
  }

  #publish(parameters: URLSearchParams, checked: { user: string; username: string; scopes: readonly string[] }):
  SimulatedAnswer | Promise<SimulatedAnswer> {
    const step = this.#step('threads_publish');
    if (step !== 'pass' && !('loseResponse' in step)) return step;
    if (!checked.scopes.includes('threads_content_publish')) return missingPermission();
    const creationId = parameters.get('creation_id') ?? '';
    const container = this.containers.get(creationId);
    if (container?.owner !== checked.user || container.isCarouselItem) {
      return invalidParameter(`Param creation_id: ${creationId} is not a container of this user`);
    }
    const status = this.#statusOf(container);
    if (status === 'IN_PROGRESS') {
      return graphError('The media is not ready for publishing, please wait for a moment', 9007, { subcode: 2207027 });
    }
    if (status !== 'FINISHED') return graphError(`The container cannot be published: it is ${status}`, 100);
    const quota = this.#quotaOf(checked.user);
    const usage = this.#usage(checked.user);
    const reply = container.replyToId !== null;
    if (reply ? usage.replies >= quota.replies : usage.posts >= quota.posts) {
      const what = reply ? 'replies' : 'posts';
      return graphError(`The user has reached the publishing limit of ${what} in 24 hours`, 9, { subcode: 2207042 });
    }
    const thread = this.#made(container, checked.username);
    this.threads.push(thread);
    container.status = 'PUBLISHED';
    container.mediaId = thread.id;
    for (const id of container.children) {
      const child = this.containers.get(id);
      if (child !== undefined) child.status = 'PUBLISHED';
    }
    if (step !== 'pass') return this.#lose();
    return { status: 200, body: { id: thread.id } };
  }

  #made(container: SimulatedContainer, username: string): SimulatedThread {
    const children = container.children.map((id) => this.containers.get(id)).filter((child) => child !== undefined);
    const items = container.mediaType === 'CAROUSEL' ? children : [container];
    const mediaUrls = items.flatMap((item) => [item.imageUrl ?? item.videoUrl ?? ''].filter((url) => url !== ''));
    const shortcode = randomBytes(8).toString('base64url').slice(0, 11);
    const parent = this.threads.find((thread) => thread.id === container.replyToId);
    const id = this.#id();
    const types = { TEXT: 'TEXT_POST', IMAGE: 'IMAGE', VIDEO: 'VIDEO', CAROUSEL: 'CAROUSEL_ALBUM' } as const;
    return {
      id,
      owner: container.owner,
      containerId: container.id,
      mediaType: types[container.mediaType],
      text: container.text,
      replyToId: container.replyToId,
      rootId: parent?.rootId ?? id,
      replyControl: container.replyControl,
      topicTag: container.topicTag,
      linkAttachment: container.linkAttachment,
      quotePostId: container.quotePostId,
      altTexts: items.map((item) => item.altText),
      mediaUrls,
      shortcode,
      permalink: `https://www.threads.com/@${username}/post/${shortcode}`,
      timestamp: this.#deps.now(),
    };
  }

  #limits(request: SimulatedRequest, user: string): SimulatedAnswer {
    const quota = this.#quotaOf(user);
    const usage = this.#usage(user);
    const node: Record<string, unknown> = {
      quota_usage: usage.posts,
      config: { quota_total: quota.posts, quota_duration: quota.durationSeconds },
      reply_quota_usage: usage.replies,
      reply_config: { quota_total: quota.replies, quota_duration: quota.durationSeconds },
    };
    const fields = [...requestedFields(request).keys()];
    const picked = Object.fromEntries(Object.entries(node).filter(([name]) => fields.includes(name)));
    return { status: 200, body: { data: [picked] } };
  }

  #mediaInsightsOf(parameters: URLSearchParams, id: string, user: string): SimulatedAnswer {
    const thread = this.threads.find((candidate) => candidate.id === id);
    if (thread?.owner !== user) return unsupportedRequest(id);
    const directReplies = this.threads.filter((candidate) => candidate.replyToId === id).length;
    return this.#insights.mediaAnswer(parameters, id, directReplies);
  }
}
