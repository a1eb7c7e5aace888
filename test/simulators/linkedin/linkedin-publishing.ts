import { createHash, randomBytes } from 'node:crypto';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import type { LinkedinAnswer, RawRequest } from './linkedin-server.ts';
import {
  accessDenied, apiError, codePoints, digits, inputError, objectOf, shownLittleText,
} from './linkedin-answers.ts';
import type {
  Caller, InjectedFailure, ShareTotals, SimulatedAsset, SimulatedComment, SimulatedPost,
} from './linkedin-records.ts';

const organizationUrn = /^urn:li:organization:(\d+)$/;
const writerRoles = ['ADMINISTRATOR', 'CONTENT_ADMIN', 'DIRECT_SPONSORED_CONTENT_POSTER'];

/**
 * LinkedIn's publishing API as the simulator serves it: the Images, Videos and Documents upload
 * flows (initializeUpload, PUT to the returned upload URLs, finalizeUpload for video parts and
 * their ETags, the status each asset reaches), the Posts API (create, finder by author), the
 * Comments API, and the organization statistics. Requests are checked the way LinkedIn checks
 * them: the author's URN against the token's member, scopes and Page roles (403 ACCESS_DENIED),
 * required fields (422 with inputErrors), media that must be AVAILABLE and owned by the author,
 * the 3,000-character commentary, duplicate posts (422 DUPLICATE_POST naming the earlier post),
 * the author's delete (204, again 204 once deleted, 404 for a post that never was; its comments go
 * with it), and LinkedIn's "little text" rule: commentary is cut at its first unescaped reserved
 * character, silently, as LinkedIn does. Facts: ../shared/platforms/oauth-majors.md, section 2.
 */
export class LinkedinPublishing {
  readonly posts: SimulatedPost[] = [];
  readonly comments: SimulatedComment[] = [];
  readonly assets: SimulatedAsset[] = [];
  /** Bytes LinkedIn takes per video part (about 4 MB); tests make it small to get several parts. */
  videoPartBytes = 4 * 1024 * 1024;
  /** Status reads a finalized video stays PROCESSING for before it is AVAILABLE. */
  videoProcessingReads = 1;
  lostResponses = 0;
  readonly #failures: (InjectedFailure | 'pass')[] = [];
  readonly #statistics = new Map<string, ShareTotals>();
  readonly #followers = new Map<string, number>();
  /** Posts deleted by their author: LinkedIn's delete is idempotent, so these answer 204 again. */
  readonly #deleted = new Set<string>();

  failNext(...steps: (InjectedFailure | 'pass')[]): void {
    this.#failures.push(...steps);
  }

  setShareStatistics(postUrn: string, totals: ShareTotals): void {
    this.#statistics.set(postUrn, totals);
  }

  setFollowers(organization: string, count: number): void {
    this.#followers.set(organization, count);
  }

  /** Whether the caller may post and comment as this author. */
  #mayWrite(caller: Caller, author: string): boolean {
    if (author === `urn:li:person:${caller.sub}`) return caller.scopes.includes('w_member_social');
    const id = organizationUrn.exec(author)?.[1];
    const role = id === undefined ? undefined : caller.roles.get(Number(id));
    return role !== undefined && writerRoles.includes(role) && caller.scopes.includes('w_organization_social');
  }

  /** Whether the caller may read this author's posts and comments: r_member_social is LinkedIn's to grant. */
  #mayRead(caller: Caller, author: string): boolean {
    if (author === `urn:li:person:${caller.sub}`) return caller.scopes.includes('r_member_social');
    const id = organizationUrn.exec(author)?.[1];
    return id !== undefined && caller.roles.has(Number(id)) && caller.scopes.includes('r_organization_social');
  }

  #mayReadStatistics(caller: Caller, organization: string): boolean {
    const id = organizationUrn.exec(organization)?.[1];
    const admin = caller.scopes.includes('r_organization_admin') || caller.scopes.includes('rw_organization_admin');
    return id !== undefined && caller.roles.has(Number(id)) && admin;
  }

  /** Answers a /rest publishing call, or undefined when the path is not one. */
  handle(request: RawRequest, caller: Caller, origin: string): LinkedinAnswer | undefined {
    const { method, path } = request;
    const action = request.query.get('action');
    const collection = /^\/rest\/(images|videos|documents)$/.exec(path)?.[1];
    if (method === 'POST' && collection !== undefined) {
      if (action === 'initializeUpload') return this.#initialize(request, caller, collection, origin);
      if (action === 'finalizeUpload' && collection === 'videos') return this.#finalize(request);
      return apiError(400, `Unknown action ${String(action)}`, { code: 'ILLEGAL_ARGUMENT' });
    }
    const asset = /^\/rest\/(images|videos|documents)\/([^/]+)$/.exec(path);
    if (method === 'GET' && asset !== null) return this.#assetStatus(decodeURIComponent(asset[2] ?? ''), caller);
    if (path === '/rest/posts' && method === 'POST') return this.#createPost(request, caller);
    if (path === '/rest/posts' && method === 'GET') return this.#findPosts(request, caller);
    const post = /^\/rest\/posts\/([^/]+)$/.exec(path)?.[1];
    if (method === 'DELETE' && post !== undefined) return this.#deletePost(request, caller, decodeURIComponent(post));
    const comments = /^\/rest\/socialActions\/([^/]+)\/comments$/.exec(path);
    if (comments !== null) {
      const target = decodeURIComponent(comments[1] ?? '');
      return method === 'POST' ? this.#createComment(request, caller, target) : this.#listComments(caller, target);
    }
    const network = /^\/rest\/networkSizes\/([^/]+)$/.exec(path);
    if (method === 'GET' && network !== null) {
      return this.#networkSize(request, caller, decodeURIComponent(network[1] ?? ''));
    }
    if (method === 'GET' && path === '/rest/organizationalEntityShareStatistics') {
      return this.#shareStatistics(request, caller);
    }
    return undefined;
  }

  /** PUT to an upload URL this simulator handed out; undefined when the path is not one. */
  upload(request: RawRequest, callerOf: (request: RawRequest) => Caller | null): LinkedinAnswer | undefined {
    const key = /^\/dms-uploads\/([0-9a-f]+)$/.exec(request.path)?.[1];
    if (request.method !== 'PUT' || key === undefined) return undefined;
    for (const asset of this.assets) {
      const part = asset.parts.find((candidate) => candidate.key === key);
      if (part !== undefined) return this.#uploadPart(request, asset, part);
      if (asset.uploadToken === key && asset.kind !== 'video') {
        // Image and document uploads carry the member's token.
        if (callerOf(request) === null) return apiError(401, 'Invalid access token', { serviceErrorCode: 65600 });
        return this.#uploadWhole(request, asset);
      }
    }
    return apiError(404, 'Upload URL not found or expired');
  }

  #initialize(request: RawRequest, caller: Caller, collection: string, origin: string): SimulatedAnswer {
    const body = objectOf(objectOf(JSON.parse(request.text || 'null') as unknown)?.initializeUploadRequest);
    if (body === null) return inputError('initializeUploadRequest', 'is required');
    const owner = body.owner;
    if (typeof owner !== 'string') return inputError('initializeUploadRequest.owner', 'is required');
    if (!this.#mayWrite(caller, owner)) return accessDenied(`${collection}.initializeUpload for owner ${owner}`);
    const kind = collection === 'images' ? 'image' : collection === 'videos' ? 'video' : 'document';
    const prefix = { image: 'D4E10AQ', video: 'D5610AQ', document: 'D4D10AQ' }[kind];
    const urn = `urn:li:${kind}:${prefix}${randomBytes(8).toString('hex')}`;
    const uploadToken = randomBytes(12).toString('hex');
    const expires = Date.now() + 24 * 3600_000;
    const asset: SimulatedAsset = {
      urn, kind, owner, status: 'WAITING_UPLOAD', size: 0, parts: [], uploadToken,
      processingReads: this.videoProcessingReads, looksLikeMp4: false,
    };
    if (kind !== 'video') {
      this.assets.push(asset);
      const uploadUrl = `${origin}/dms-uploads/${uploadToken}`;
      return { status: 200, body: { value: { uploadUrlExpiresAt: expires, uploadUrl, [kind]: urn } } };
    }
    const size = body.fileSizeBytes;
    if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
      return inputError('initializeUploadRequest.fileSizeBytes', 'must be a positive integer');
    }
    asset.size = size;
    for (let first = 0; first < size; first += this.videoPartBytes) {
      const last = Math.min(size, first + this.videoPartBytes) - 1;
      asset.parts.push({ firstByte: first, lastByte: last, key: randomBytes(12).toString('hex'), etag: null });
    }
    this.assets.push(asset);
    const uploadInstructions = asset.parts.map((part) => ({
      uploadUrl: `${origin}/dms-uploads/${part.key}`, firstByte: part.firstByte, lastByte: part.lastByte,
    }));
    return {
      status: 200,
      body: {
        value: { uploadUrlsExpireAt: expires, video: urn, uploadInstructions, uploadToken, thumbnailUploadUrl: '' },
      },
    };
  }

  #uploadWhole(request: RawRequest, asset: SimulatedAsset): SimulatedAnswer {
    if (asset.status !== 'WAITING_UPLOAD') return apiError(400, 'The upload was already completed');
    const bytes = request.raw;
    const isImage = [
      Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from([0xff, 0xd8, 0xff]), Buffer.from('GIF8', 'latin1'),
    ].some((magic) => bytes.subarray(0, magic.length).equals(magic));
    const isPdf = bytes.subarray(0, 5).toString('latin1') === '%PDF-';
    asset.size = bytes.length;
    asset.status = (asset.kind === 'image' ? isImage : isPdf) ? 'AVAILABLE' : 'PROCESSING_FAILED';
    return { status: 201 };
  }

  #uploadPart(request: RawRequest, asset: SimulatedAsset, part: SimulatedAsset['parts'][number]): SimulatedAnswer {
    const expected = part.lastByte - part.firstByte + 1;
    if (request.raw.length !== expected) {
      return apiError(400, `Part must be ${String(expected)} bytes, got ${String(request.raw.length)}`);
    }
    if (part.firstByte === 0) asset.looksLikeMp4 = request.raw.subarray(4, 8).toString('latin1') === 'ftyp';
    part.etag = `/ETag/${createHash('sha1').update(request.raw).digest('hex')}`;
    return { status: 200, headers: { ETag: part.etag } };
  }

  #finalize(request: RawRequest): SimulatedAnswer {
    const body = objectOf(objectOf(JSON.parse(request.text || 'null') as unknown)?.finalizeUploadRequest);
    const asset = this.assets.find((candidate) => candidate.urn === body?.video && candidate.kind === 'video');
    if (body === null || asset === undefined) {
      return inputError('finalizeUploadRequest.video', 'is not an initialized video');
    }
    if (body.uploadToken !== asset.uploadToken) {
      return inputError('finalizeUploadRequest.uploadToken', 'does not match');
    }
    const ids = body.uploadedPartIds;
    const etags = asset.parts.map((part) => part.etag);
    if (!Array.isArray(ids) || etags.includes(null) || JSON.stringify(ids) !== JSON.stringify(etags)) {
      return inputError('finalizeUploadRequest.uploadedPartIds', 'must list every part\'s ETag in order');
    }
    asset.status = asset.looksLikeMp4 ? 'PROCESSING' : 'PROCESSING_FAILED';
    return { status: 200, body: {} };
  }

  #assetStatus(urn: string, caller: Caller): SimulatedAnswer {
    const asset = this.assets.find((candidate) => candidate.urn === urn);
    if (asset === undefined) return apiError(404, `${urn} not found`);
    if (!this.#mayWrite(caller, asset.owner)) return accessDenied(urn);
    if (asset.status === 'PROCESSING') {
      if (asset.processingReads <= 0) asset.status = 'AVAILABLE';
      asset.processingReads -= 1;
    }
    return { status: 200, body: { id: urn, owner: asset.owner, status: asset.status } };
  }

  /** The next injected step for a create, if any (an error answer short-circuits). */
  #nextStep(): InjectedFailure | 'pass' {
    return this.#failures.shift() ?? 'pass';
  }

  #created(step: InjectedFailure | 'pass', answer: SimulatedAnswer): LinkedinAnswer {
    if (step !== 'pass' && 'loseResponse' in step) {
      this.lostResponses += 1;
      return { ...answer, lose: true };
    }
    return answer;
  }

  #content(author: string, content: unknown): SimulatedPost['content'] | SimulatedAnswer {
    if (content === undefined) return null;
    const body = objectOf(content);
    const media = objectOf(body?.media);
    const multi = objectOf(body?.multiImage);
    const listed = Array.isArray(multi?.images) ? (multi.images as unknown[]).map(objectOf) : null;
    const items = media !== null ? [media] : listed;
    if (items === null || items.length === 0) return inputError('content', 'must hold media or multiImage');
    if (multi !== null && (items.length < 2 || items.length > 20)) {
      return inputError('content.multiImage.images', 'takes 2 to 20 images');
    }
    const ids: string[] = [];
    const altTexts: (string | null)[] = [];
    let kind: SimulatedAsset['kind'] | null = null;
    for (const item of items) {
      const asset = this.assets.find((candidate) => candidate.urn === item?.id);
      if (asset === undefined) return inputError('content.media.id', `${String(item?.id)} does not exist`);
      if (asset.owner !== author) return inputError('content.media.id', `${asset.urn} is not owned by the author`);
      if (asset.status !== 'AVAILABLE') {
        return inputError('content.media.id', `${asset.urn} is ${asset.status}, not AVAILABLE`);
      }
      if (multi !== null && asset.kind !== 'image') return inputError('content.multiImage.images', 'takes images only');
      if (asset.kind === 'document' && typeof media?.title !== 'string') {
        return inputError('content.media.title', 'is required for a document');
      }
      kind = asset.kind;
      ids.push(asset.urn);
      altTexts.push(typeof item?.altText === 'string' ? item.altText : null);
    }
    return { kind: multi !== null ? 'multiImage' : kind ?? 'image', ids, altTexts };
  }

  #createPost(request: RawRequest, caller: Caller): LinkedinAnswer {
    const step = this.#nextStep();
    if (step !== 'pass' && !('loseResponse' in step)) return step;
    const body = objectOf(JSON.parse(request.text || 'null') as unknown);
    if (body === null) return inputError('', 'a JSON body is required');
    const { author, commentary, visibility, distribution, lifecycleState } = body;
    if (typeof author !== 'string') return inputError('author', 'is required');
    if (!this.#mayWrite(caller, author)) return accessDenied('partnerApiPostsExternal.CREATE.20260101');
    if (typeof commentary !== 'string') return inputError('commentary', 'is required');
    // The limit counts what members read: escapes do not count.
    if (codePoints(shownLittleText(commentary)) > 3000) {
      return inputError('commentary', 'is longer than 3000 characters');
    }
    const visibilities = author.startsWith('urn:li:organization:')
      ? ['PUBLIC', 'LOGGED_IN']
      : ['PUBLIC', 'CONNECTIONS', 'LOGGED_IN'];
    if (typeof visibility !== 'string' || !visibilities.includes(visibility)) {
      return inputError('visibility', 'is not valid for this author');
    }
    const feed = objectOf(distribution);
    const validFeed = feed !== null && ['MAIN_FEED', 'NONE'].includes(String(feed.feedDistribution))
      && Array.isArray(feed.targetEntities) && Array.isArray(feed.thirdPartyDistributionChannels);
    if (!validFeed) {
      return inputError('distribution', 'needs feedDistribution, targetEntities and thirdPartyDistributionChannels');
    }
    if (lifecycleState !== 'PUBLISHED' && lifecycleState !== 'DRAFT') {
      return inputError('lifecycleState', 'must be PUBLISHED or DRAFT');
    }
    const content = this.#content(author, body.content);
    if (content !== null && 'status' in content) return content;
    const earlier = commentary === ''
      ? undefined
      : this.posts.find((post) => post.author === author && post.commentary === commentary);
    if (earlier !== undefined) {
      return apiError(422, `Content is a duplicate of ${earlier.id}`, { code: 'DUPLICATE_POST' });
    }
    const post: SimulatedPost = {
      id: `urn:li:share:${digits(19)}`,
      author,
      commentary,
      shownText: shownLittleText(commentary),
      visibility,
      isReshareDisabledByAuthor: body.isReshareDisabledByAuthor === true,
      content,
      createdAt: Date.now(),
    };
    this.posts.push(post);
    return this.#created(step, { status: 201, headers: { 'x-restli-id': post.id, 'x-linkedin-id': post.id } });
  }

  #findPosts(request: RawRequest, caller: Caller): SimulatedAnswer {
    if (request.query.get('q') !== 'author') return apiError(400, 'Unsupported finder', { code: 'ILLEGAL_ARGUMENT' });
    if (request.headers['x-restli-method'] !== 'FINDER') {
      return apiError(400, 'X-RestLi-Method FINDER is required for a finder', { code: 'ILLEGAL_ARGUMENT' });
    }
    const author = request.query.get('author') ?? '';
    if (!this.#mayRead(caller, author)) return accessDenied(`partnerApiPostsExternal.FINDER-author.20260101`);
    const count = Math.min(100, Number(request.query.get('count') ?? '10'));
    const start = Number(request.query.get('start') ?? '0');
    const mine = this.posts.filter((post) => post.author === author).sort((a, b) => b.createdAt - a.createdAt);
    const elements = mine.slice(start, start + count).map((post) => ({
      id: post.id, author: post.author, commentary: post.commentary, visibility: post.visibility,
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      isReshareDisabledByAuthor: post.isReshareDisabledByAuthor,
      lifecycleState: 'PUBLISHED', createdAt: post.createdAt, lastModifiedAt: post.createdAt,
      publishedAt: post.createdAt,
    }));
    return { status: 200, body: { paging: { start, count, total: mine.length, links: [] }, elements } };
  }

  #deletePost(request: RawRequest, caller: Caller, urn: string): SimulatedAnswer {
    if (request.headers['x-restli-method'] !== 'DELETE') {
      return apiError(400, 'X-RestLi-Method DELETE is required for a delete', { code: 'ILLEGAL_ARGUMENT' });
    }
    if (this.#deleted.has(urn)) return { status: 204 };
    const at = this.posts.findIndex((candidate) => candidate.id === urn);
    const post = this.posts[at];
    if (post === undefined) return apiError(404, `${urn} not found`);
    if (!this.#mayWrite(caller, post.author)) return accessDenied('partnerApiPostsExternal.DELETE.20260101');
    this.posts.splice(at, 1);
    for (let index = this.comments.length - 1; index >= 0; index -= 1) {
      if (this.comments[index]?.object === urn) this.comments.splice(index, 1);
    }
    this.#deleted.add(urn);
    return { status: 204 };
  }

  #commentBody(comment: SimulatedComment): Record<string, unknown> {
    const id = comment.urn.slice(comment.urn.lastIndexOf(',') + 1, -1);
    return {
      $URN: comment.urn, commentUrn: comment.urn, id, actor: comment.actor, object: comment.object,
      message: { text: comment.text }, created: { actor: comment.actor, time: comment.createdAt },
    };
  }

  #createComment(request: RawRequest, caller: Caller, target: string): LinkedinAnswer {
    const step = this.#nextStep();
    if (step !== 'pass' && !('loseResponse' in step)) return step;
    const post = this.posts.find((candidate) => candidate.id === target);
    if (post === undefined) return apiError(404, `${target} not found`);
    const body = objectOf(JSON.parse(request.text || 'null') as unknown);
    const actor = body?.actor;
    if (typeof actor !== 'string') return inputError('actor', 'is required');
    if (!this.#mayWrite(caller, actor)) return accessDenied('comments.CREATE');
    if (body?.object !== target) return inputError('object', 'must be the post the path names');
    const text = objectOf(body.message)?.text;
    if (typeof text !== 'string' || text === '') return inputError('message.text', 'is required');
    if (codePoints(shownLittleText(text)) > 1250) return inputError('message.text', 'is longer than 1250 characters');
    const activity = `urn:li:activity:${post.id.slice(post.id.lastIndexOf(':') + 1)}`;
    const comment: SimulatedComment = {
      urn: `urn:li:comment:(${activity},${digits(19)})`, actor, object: target, text, createdAt: Date.now(),
    };
    this.comments.push(comment);
    const answer = { status: 201, headers: { 'x-restli-id': comment.urn }, body: this.#commentBody(comment) };
    return this.#created(step, answer);
  }

  #listComments(caller: Caller, target: string): SimulatedAnswer {
    const post = this.posts.find((candidate) => candidate.id === target);
    if (post === undefined) return apiError(404, `${target} not found`);
    if (!this.#mayRead(caller, post.author)) return accessDenied('comments.GET_ALL');
    const elements = this.comments
      .filter((comment) => comment.object === target)
      .map((comment) => this.#commentBody(comment));
    return { status: 200, body: { paging: { start: 0, count: elements.length, total: elements.length }, elements } };
  }

  #networkSize(request: RawRequest, caller: Caller, organization: string): SimulatedAnswer {
    if (request.query.get('edgeType') !== 'COMPANY_FOLLOWED_BY_MEMBER') return apiError(400, 'Invalid edgeType');
    if (!this.#mayReadStatistics(caller, organization)) return accessDenied('networkSizes');
    return { status: 200, body: { firstDegreeSize: this.#followers.get(organization) ?? 0 } };
  }

  #shareStatistics(request: RawRequest, caller: Caller): SimulatedAnswer {
    const organization = request.query.get('organizationalEntity') ?? '';
    if (request.query.get('q') !== 'organizationalEntity') return apiError(400, 'Unsupported finder');
    if (!this.#mayReadStatistics(caller, organization)) return accessDenied('organizationalEntityShareStatistics');
    const list = request.query.get('shares') ?? request.query.get('ugcPosts');
    const urns = /^List\((.*)\)$/.exec(list ?? '')?.[1]?.split(',').map(decodeURIComponent) ?? [];
    const zero: ShareTotals = {
      impressionCount: 0, uniqueImpressionsCount: 0, clickCount: 0, likeCount: 0, commentCount: 0, shareCount: 0,
    };
    const elements = urns.map((urn) => {
      const post = this.posts.find((candidate) => candidate.id === urn && candidate.author === organization);
      const totals = post === undefined ? zero : this.#statistics.get(urn) ?? zero;
      return { organizationalEntity: organization, share: urn, totalShareStatistics: { ...totals, engagement: 0 } };
    });
    return { status: 200, body: { paging: { start: 0, count: 10 }, elements } };
  }
}
