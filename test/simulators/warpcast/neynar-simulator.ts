import { createHash, randomBytes } from 'node:crypto';
import {
  jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { neynarOperations } from './neynar-operations.ts';
import { castBody, channelBody, simulatedEpoch, userBody } from './neynar-presenters.ts';

/**
 * A local stand-in for Neynar's v2 Farcaster API: signer lookup (GET /v2/farcaster/signer),
 * user lookup (GET /v2/farcaster/user/bulk), publishing (POST /v2/farcaster/cast), a user's
 * casts (GET /v2/farcaster/feed/user/casts), channel search (GET /v2/farcaster/channel/search)
 * and the channels a user follows (GET /v2/farcaster/user/channels). It checks the `x-api-key`
 * header, the required parameters, and that a signer is only usable with the API key that
 * created it; errors are ErrorRes `{message, code?, property?, status?}`.
 * Not in Neynar's spec, assumed: a bad API key answers 401 ErrorRes like its other errors; a
 * repeated `idem` answers 200 with the cast the first request made (the field exists "to prevent
 * duplicate requests; use the same idem key on retry attempts"); a 429 carries Retry-After.
 * Requests and answers are held to Neynar's description (operations.json, neynar-operations.ts):
 * users, casts and channels carry every field its schemas require.
 * Facts: ../shared/platforms/open-and-community.md, section 3.
 */
export interface SimulatedSigner {
  uuid: string;
  /** The API key that created it. */
  apiKey: string;
  status: 'generated' | 'pending_approval' | 'approved' | 'revoked';
  fid?: number;
}

export interface SimulatedFarcasterUser {
  fid: number;
  username: string;
  displayName?: string;
  pfpUrl?: string;
  followers?: number;
}

export interface SimulatedChannel {
  id: string;
  name: string;
  /** The channel's parent_url: casts in the channel have it as their parent. */
  url: string;
  /** Fids that follow it, for GET /v2/farcaster/user/channels. */
  followers: number[];
}

/** A cast as the simulated network holds it. */
export interface SimulatedCast {
  hash: string;
  fid: number;
  text: string;
  embeds: { url: string }[];
  /** The answered cast's hash, or null. */
  parentHash: string | null;
  /** The channel's parent_url, for a cast in a channel. */
  parentUrl: string | null;
  parentAuthorFid: number | null;
  /** The idempotency key it was published with, and the API key that sent it. */
  idem: string | null;
  apiKey: string;
  timestamp: string;
  /** Reactions other users gave it (set by a test). */
  likes: number;
  recasts: number;
}

/**
 * What the next POST /v2/farcaster/cast gets instead of the normal answer: an error answer (the
 * cast is not made), or `loseResponse`, where the cast is made and the answer never comes, as
 * when the connection breaks after Neynar accepted.
 */
export type InjectedCastFailure = SimulatedAnswer | { loseResponse: true };

export interface NeynarSimulator extends RunningSimulator {
  addApiKey(key: string): void;
  addSigner(signer: SimulatedSigner): void;
  addUser(user: SimulatedFarcasterUser): void;
  addChannel(channel: SimulatedChannel): void;
  /** Fids whose accounts may publish long casts (1024 bytes instead of 320). */
  allowLongCasts(fid: number): void;
  /** Every cast made, oldest first. */
  readonly casts: SimulatedCast[];
  /** The idem values POST /v2/farcaster/cast received for casts with this text, in order. */
  idemsFor(text: string): (string | null)[];
  /** Steps for the next publishing requests, in order; 'pass' lets one through untouched. */
  failNext(...failures: (InjectedCastFailure | 'pass')[]): void;
  /** Answers held back on purpose (`loseResponse`). */
  readonly lostResponses: number;
}

function errorRes(status: number, message: string, extra: { code?: string; property?: string } = {}): SimulatedAnswer {
  return { status, body: { message, ...extra, status } };
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const castHashPattern = /^0x[0-9a-f]{40}$/;

/** The protocol's limits on a cast (farcasterxyz/protocol SPECIFICATION.md), kept here, not imported. */
const castTextBytes = 320;
const longCastTextBytes = 1024;
const maxMentions = 10;
const maxEmbeds = 2;
const maxEmbedUrlBytes = 256;

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

type CastPlace = Pick<SimulatedCast, 'parentHash' | 'parentUrl' | 'parentAuthorFid'>;

/** `@name` where a mention can start: Farcaster usernames (fnames) and ENS names. */
function mentionCount(text: string): number {
  return [...text.matchAll(/(^|[^\w@])@[a-z0-9][a-z0-9-]{0,19}(\.eth)?/gi)].length;
}

export async function startNeynarSimulator(): Promise<NeynarSimulator> {
  const apiKeys = new Set<string>();
  const signers: SimulatedSigner[] = [];
  const users: SimulatedFarcasterUser[] = [];
  const channels: SimulatedChannel[] = [];
  const channelsCreatedAt = new Map<string, string>();
  const longCasters = new Set<number>();
  const casts: SimulatedCast[] = [];
  /** Every publishing request's text and idem, in order (refused ones too). */
  const castAttempts: { text: string; idem: string | null }[] = [];
  const failures: (InjectedCastFailure | 'pass')[] = [];
  let lostResponses = 0;

  const userOf = (fid: number) => users.find((candidate) => candidate.fid === fid);

  function invalid(property: string, message: string): SimulatedAnswer {
    return errorRes(400, message, { code: 'InvalidField', property });
  }

  /** The problems Neynar (or the hub behind it) finds in a publish-cast body, as its first refusal. */
  function checkCast(body: Record<string, unknown>, fid: number): SimulatedAnswer | string[] | null {
    const text = body.text ?? '';
    if (typeof text !== 'string') return invalid('text', 'text must be a string');
    const limit = longCasters.has(fid) ? longCastTextBytes : castTextBytes;
    if (byteLength(text) > limit) {
      return invalid('text', `text must be at most ${String(limit)} bytes, got ${String(byteLength(text))}`);
    }
    if (mentionCount(text) > maxMentions) {
      return invalid('text', `a cast can mention at most ${String(maxMentions)} users`);
    }
    const embeds = body.embeds ?? [];
    if (!Array.isArray(embeds)) return invalid('embeds', 'embeds must be an array');
    if (embeds.length > maxEmbeds) return invalid('embeds', `embeds must contain at most ${String(maxEmbeds)} items`);
    const urls: string[] = [];
    for (const embed of embeds as unknown[]) {
      const url = (embed as { url?: unknown } | null)?.url;
      if (typeof url !== 'string' || byteLength(url) < 1 || byteLength(url) > maxEmbedUrlBytes) {
        return invalid('embeds', 'each embed must be {url} with a URL of 1 to 256 bytes');
      }
      urls.push(url);
    }
    if (text === '' && urls.length === 0) return invalid('text', 'a cast needs text or an embed');
    return urls;
  }

  /**
   * DELETE /v2/farcaster/cast {signer_uuid, target_hash}: the signer's own cast goes
   * (`{success: true}`); an approved signer is needed; an unknown cast, or another account's, is 404.
   */
  function deleteCast(request: SimulatedRequest, apiKey: string): SimulatedAnswer {
    const body = jsonBody(request) as Record<string, unknown> | null;
    const signer = signers.find((candidate) => candidate.uuid === body?.signer_uuid && candidate.apiKey === apiKey);
    if (signer === undefined) return errorRes(404, 'Signer not found', { code: 'NotFound', property: 'signer_uuid' });
    if (signer.status !== 'approved' || signer.fid === undefined) {
      const refusal = { code: 'SignerNotApproved', property: 'signer_uuid' };
      return errorRes(403, `Signer status is ${signer.status}.`, refusal);
    }
    const index = casts.findIndex((cast) => cast.hash === body?.target_hash && cast.fid === signer.fid);
    if (index < 0) return errorRes(404, 'Cast not found', { code: 'NotFound', property: 'target_hash' });
    casts.splice(index, 1);
    return { status: 200, body: { success: true, message: 'Cast deleted' } };
  }

  function publishCast(request: SimulatedRequest, apiKey: string): SimulatedAnswer | Promise<SimulatedAnswer> {
    const parsed = jsonBody(request);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return errorRes(400, 'request body must be a JSON object', { code: 'InvalidField' });
    }
    const body = parsed as Record<string, unknown>;
    const idem = typeof body.idem === 'string' ? body.idem : null;
    castAttempts.push({ text: typeof body.text === 'string' ? body.text : '', idem });
    const step = failures.shift() ?? 'pass';
    if (step !== 'pass' && !('loseResponse' in step)) return step;

    const uuid = body.signer_uuid;
    if (typeof uuid !== 'string' || !uuidPattern.test(uuid)) {
      return invalid('signer_uuid', 'signer_uuid must be a valid UUID');
    }
    const signer = signers.find((candidate) => candidate.uuid === uuid && candidate.apiKey === apiKey);
    if (signer === undefined) return errorRes(404, 'Signer not found', { code: 'NotFound', property: 'signer_uuid' });
    if (signer.status !== 'approved' || signer.fid === undefined) {
      const refusal = { code: 'SignerNotApproved', property: 'signer_uuid' };
      return errorRes(403, `Signer status is ${signer.status}.`, refusal);
    }
    const fid = signer.fid;
    // A retry with the same idem gets the cast the first request made instead of a second one.
    const earlier = idem === null ? undefined : casts.find((cast) => cast.idem === idem && cast.apiKey === apiKey);
    if (earlier !== undefined) return answerCast(earlier, step);

    const embeds = checkCast(body, fid);
    if (embeds !== null && !Array.isArray(embeds)) return embeds;
    const place = castPlace(body);
    if ('status' in place) return place;
    const cast: SimulatedCast = {
      hash: `0x${createHash('sha1').update(randomBytes(16)).digest('hex')}`,
      fid,
      text: typeof body.text === 'string' ? body.text : '',
      embeds: (embeds ?? []).map((url) => ({ url })),
      ...place,
      idem,
      apiKey,
      timestamp: new Date().toISOString(),
      likes: 0,
      recasts: 0,
    };
    casts.push(cast);
    return answerCast(cast, step);
  }

  /** Where a cast goes: a reply to a cast hash, a channel (by id or parent_url), or the user's feed. */
  function castPlace(body: Record<string, unknown>): SimulatedAnswer | CastPlace {
    const { parent, channel_id: channelId, parent_author_fid: parentAuthorFid } = body;
    if (parent !== undefined && typeof parent !== 'string') return invalid('parent', 'parent must be a string');
    if (channelId !== undefined && typeof channelId !== 'string') {
      return invalid('channel_id', 'channel_id must be a string');
    }
    if (parentAuthorFid !== undefined && (typeof parentAuthorFid !== 'number' || !Number.isInteger(parentAuthorFid))) {
      return invalid('parent_author_fid', 'parent_author_fid must be an integer');
    }
    if (parent !== undefined && parent.startsWith('0x')) {
      if (!castHashPattern.test(parent)) {
        return invalid('parent', 'parent must be a cast hash or a channel parent_url');
      }
      const answered = casts.find((cast) => cast.hash === parent);
      if (answered === undefined) {
        return errorRes(404, 'Parent cast not found', { code: 'NotFound', property: 'parent' });
      }
      if (parentAuthorFid !== undefined && parentAuthorFid !== answered.fid) {
        return invalid('parent_author_fid', 'parent_author_fid is not the author of the parent cast');
      }
      return { parentHash: answered.hash, parentUrl: null, parentAuthorFid: answered.fid };
    }
    if (channelId !== undefined) {
      const channel = channels.find((candidate) => candidate.id === channelId);
      if (channel === undefined) {
        return errorRes(404, 'Channel not found', { code: 'NotFound', property: 'channel_id' });
      }
      return { parentHash: null, parentUrl: channel.url, parentAuthorFid: null };
    }
    if (parent !== undefined) {
      if (!channels.some((channel) => channel.url === parent)) {
        return errorRes(404, 'Channel not found', { code: 'NotFound', property: 'parent' });
      }
      return { parentHash: null, parentUrl: parent, parentAuthorFid: null };
    }
    return { parentHash: null, parentUrl: null, parentAuthorFid: null };
  }

  /** A cast as Neynar presents it, with the replies the network holds. */
  function bodyOf(cast: SimulatedCast): Record<string, unknown> {
    const replies = casts.filter((candidate) => candidate.parentHash === cast.hash).length;
    const root = rootOf(cast);
    const channel = channels.find((candidate) => candidate.url === root.parentUrl);
    const thread = { threadHash: root.hash, rootParentUrl: root.parentUrl, channel };
    return castBody(cast, userOf(cast.fid), replies, thread);
  }

  /** The first cast of the thread `cast` is in: itself when it answers no cast the network holds. */
  function rootOf(cast: SimulatedCast): SimulatedCast {
    let root = cast;
    for (;;) {
      const parent = casts.find((candidate) => candidate.hash === root.parentHash);
      if (parent === undefined) return root;
      root = parent;
    }
  }

  /** A channel as Neynar shows it, created when the test added it. */
  const shownChannel = (channel: SimulatedChannel) =>
    channelBody(channel, channelsCreatedAt.get(channel.id) ?? simulatedEpoch);

  function answerCast(
    cast: SimulatedCast,
    step: InjectedCastFailure | 'pass',
  ): SimulatedAnswer | Promise<SimulatedAnswer> {
    if (step !== 'pass' && 'loseResponse' in step) {
      lostResponses += 1;
      // The cast exists; the client never hears so and gives up on its own timeout.
      return new Promise<SimulatedAnswer>(() => undefined);
    }
    // PostCastResponse names the author by fid only; the username needs a user lookup.
    const body = { success: true, cast: { hash: cast.hash, author: { fid: cast.fid }, text: cast.text } };
    return { status: 200, body };
  }

  function positiveFid(request: SimulatedRequest): number | SimulatedAnswer {
    const fid = request.query.get('fid');
    if (fid === null || !/^\d+$/.test(fid)) return invalid('fid', 'fid must be an unsigned integer');
    return Number(fid);
  }

  function limitOf(request: SimulatedRequest, fallback: number, max: number): number | SimulatedAnswer {
    const limit = request.query.get('limit');
    if (limit === null) return fallback;
    const value = Number(limit);
    if (!Number.isInteger(value) || value < 1 || value > max) {
      return invalid('limit', `limit must be an integer from 1 to ${String(max)}`);
    }
    return value;
  }

  function userCasts(request: SimulatedRequest): SimulatedAnswer {
    const fid = positiveFid(request);
    if (typeof fid !== 'number') return fid;
    const limit = limitOf(request, 25, 150);
    if (typeof limit !== 'number') return limit;
    const mine = casts.filter((cast) => cast.fid === fid).reverse().slice(0, limit);
    const body = { casts: mine.map(bodyOf), next: { cursor: null } };
    return { status: 200, body };
  }

  /** GET /v2/farcaster/cast: one cast by its hash (`type=hash`) or its URL (`type=url`, not simulated). */
  function lookupCast(request: SimulatedRequest): SimulatedAnswer {
    const identifier = request.query.get('identifier');
    if (request.query.get('type') !== 'hash') return invalid('type', 'type must be hash or url');
    if (identifier === null || !castHashPattern.test(identifier)) {
      return invalid('identifier', 'identifier must be a cast hash');
    }
    const cast = casts.find((candidate) => candidate.hash === identifier);
    if (cast === undefined) return errorRes(404, 'Cast not found', { code: 'NotFound' });
    return { status: 200, body: { cast: bodyOf(cast) } };
  }

  function searchChannels(request: SimulatedRequest): SimulatedAnswer {
    const q = request.query.get('q');
    if (q === null || q === '') return invalid('q', 'q is required');
    const limit = limitOf(request, 20, 200);
    if (typeof limit !== 'number') return limit;
    const wanted = q.toLowerCase();
    const found = channels.filter(
      (channel) => channel.id.includes(wanted) || channel.name.toLowerCase().includes(wanted),
    );
    return { status: 200, body: { channels: found.slice(0, limit).map(shownChannel), next: { cursor: null } } };
  }

  function followedChannels(request: SimulatedRequest): SimulatedAnswer {
    const fid = positiveFid(request);
    if (typeof fid !== 'number') return fid;
    const limit = limitOf(request, 20, 100);
    if (typeof limit !== 'number') return limit;
    const followed = channels.filter((channel) => channel.followers.includes(fid));
    return { status: 200, body: { channels: followed.slice(0, limit).map(shownChannel), next: { cursor: null } } };
  }

  function lookupSigner(request: SimulatedRequest, apiKey: string): SimulatedAnswer {
    const uuid = request.query.get('signer_uuid');
    if (uuid === null || !uuidPattern.test(uuid)) {
      return errorRes(400, 'signer_uuid must be a valid UUID', { code: 'InvalidField', property: 'signer_uuid' });
    }
    const signer = signers.find((candidate) => candidate.uuid === uuid && candidate.apiKey === apiKey);
    if (signer === undefined) return errorRes(404, 'Signer not found', { code: 'NotFound', property: 'signer_uuid' });
    const token = `0x${signer.uuid.replace(/-/g, '')}`;
    const approvalUrl = `https://client.farcaster.xyz/deeplinks/signed-key-request?token=${token}`;
    return {
      status: 200,
      body: {
        object: 'signer',
        signer_uuid: signer.uuid,
        public_key: `0x${'ab'.repeat(32)}`,
        status: signer.status,
        ...(signer.status === 'pending_approval' ? { signer_approval_url: approvalUrl } : {}),
        ...(signer.fid === undefined || signer.status === 'generated' ? {} : { fid: signer.fid }),
      },
    };
  }

  function bulkUsers(request: SimulatedRequest): SimulatedAnswer {
    const fids = request.query.get('fids');
    if (fids === null || !/^\d+(,\d+)*$/.test(fids)) {
      return errorRes(400, 'fids must be a comma-separated list of fids', { code: 'InvalidField', property: 'fids' });
    }
    const wanted = fids.split(',').map(Number);
    const found = users.filter((candidate) => wanted.includes(candidate.fid))
      .map((candidate) => userBody(candidate.fid, candidate));
    return { status: 200, body: { users: found } };
  }

  function answer(request: SimulatedRequest): SimulatedAnswer | Promise<SimulatedAnswer> | undefined {
    const apiKey = request.headers['x-api-key'];
    if (typeof apiKey !== 'string' || !apiKeys.has(apiKey)) {
      return errorRes(401, 'Unauthorized: invalid or missing API key');
    }
    // Neynar serves its paths with and without the trailing slash.
    const path = request.path.replace(/\/$/, '');
    if (request.method === 'POST' && path === '/v2/farcaster/cast') return publishCast(request, apiKey);
    if (request.method === 'DELETE' && path === '/v2/farcaster/cast') return deleteCast(request, apiKey);
    if (request.method !== 'GET') return undefined;
    if (path === '/v2/farcaster/signer') return lookupSigner(request, apiKey);
    if (path === '/v2/farcaster/user/bulk') return bulkUsers(request);
    if (path === '/v2/farcaster/feed/user/casts') return userCasts(request);
    if (path === '/v2/farcaster/cast') return lookupCast(request);
    if (path === '/v2/farcaster/channel/search') return searchChannels(request);
    if (path === '/v2/farcaster/user/channels') return followedChannels(request);
    return undefined;
  }

  const server = await startSimulatorServer(answer, errorRes(404, 'Not Found'), { operations: neynarOperations() });
  return {
    ...server,
    addApiKey: (key) => { apiKeys.add(key); },
    addSigner: (signer) => { signers.push(signer); },
    addUser: (user) => { users.push(user); },
    addChannel: (channel) => {
      channels.push(channel);
      channelsCreatedAt.set(channel.id, new Date().toISOString());
    },
    allowLongCasts: (fid) => { longCasters.add(fid); },
    casts,
    idemsFor: (text) => castAttempts.filter((attempt) => attempt.text === text).map((attempt) => attempt.idem),
    failNext: (...steps) => { failures.push(...steps); },
    get lostResponses() { return lostResponses; },
  };
}
