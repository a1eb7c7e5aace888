import { createHash } from 'node:crypto';
import { z } from 'zod';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import type {
  AdapterOptions, ChannelCredentials, CommentInput, PlatformAdapter, PublishInput, PublishResult, RemovalTarget,
} from '../kit/platform-adapter.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { readWarpcastCredential, type WarpcastCredential } from './credential.ts';
import { warpcastSettings } from './definition.ts';
import { classifyNeynarRefusal, neynarErrorMessage, neynarRetryAfterMs } from './neynar-errors.ts';
import { trailingSlashes } from '../../net/trailing-slashes.ts';

const provider = 'warpcast';

/** The protocol's longest embed URL. */
const maxEmbedUrlBytes = 256;

/** Where Neynar answers: `WARPCAST_API_URL`, https://api.neynar.com unless the operator says otherwise. */
export interface NeynarEndpoint {
  apiUrl: string;
}

const castHash = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

const signerResponse = z.object({
  status: z.enum(['generated', 'pending_approval', 'approved', 'revoked']),
  fid: z.number().int().positive().optional(),
});

const usersResponse = z.object({
  users: z.array(z.object({
    fid: z.number().int(),
    username: z.string().min(1),
    follower_count: z.number().int().optional(),
    following_count: z.number().int().optional(),
  })),
});

/** GET /v2/farcaster/cast: the counters of one cast. */
const castLookupResponse = z.object({
  cast: z.object({
    reactions: z.object({ likes_count: z.number().int(), recasts_count: z.number().int() }),
    replies: z.object({ count: z.number().int() }),
  }),
});

/** PostCastResponse: the author is named by fid only. */
const postCastResponse = z.object({
  success: z.boolean().optional(),
  cast: z.object({ hash: castHash, author: z.object({ fid: z.number().int() }) }),
});

const feedResponse = z.object({
  casts: z.array(z.object({ hash: castHash, author: z.object({ username: z.string().min(1) }) })),
});

const channelsResponse = z.object({
  channels: z.array(z.object({
    id: z.string(),
    name: z.string().optional(),
    url: z.string().optional(),
    image_url: z.string().optional(),
    follower_count: z.number().optional(),
  })),
});

const searchData = z.object({
  q: z.string().trim().min(1, 'q (the search text) is required'),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

/** Who casts for the channel: the signer's fid and the username its casts are linked under. */
interface Caster {
  fid: number;
  username: string;
}

function unreadable(what: string): PlatformError {
  return unreadableAnswer(provider, `Neynar answered with ${what}`);
}

/**
 * Neynar's `idem` for one post part: the same on every attempt at the part, different for every
 * part. Neynar recommends 16 characters; 16 hex digits of a SHA-256 keep 64 bits of the part id's
 * key, so two parts of one account colliding is out of reach.
 */
export function neynarIdem(idempotencyKey: string): string {
  return createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 16);
}

/**
 * The web client's link to a cast: the author's username and the hash's first 10 characters
 * (`0x` + 8 hex), the form the Farcaster app copies. farcaster.xyz is the domain Warpcast was
 * renamed to; warpcast.com links redirect there.
 */
export function castUrl(username: string, hash: string): string {
  return `https://farcaster.xyz/${encodeURIComponent(username)}/${hash.slice(0, 10)}`;
}

/**
 * Publishes casts through Neynar with the channel's signer (shared/platforms/open-and-community.md,
 * section 3). A thread is a chain of replies, each part's `parent` the previous cast's hash; the
 * post's channel (`channel_id`) applies to the first cast only. Farcaster carries media as URL
 * embeds that the cast's readers fetch: each attached file is embedded by its public URL, which
 * POST /posts has checked the platform can reach (media-reach.ts).
 *
 * Exactly once: every POST /v2/farcaster/cast carries `idem`, derived from the part's
 * idempotency key (`neynarIdem`), so every attempt at one part sends the same value. When the
 * worker dies, or the answer is lost, after Neynar accepted a cast and before the part's
 * release id is written, the job's retry sends the part again with the same `idem`, and Neynar
 * answers with the cast it already made instead of making a second one. Everything the part's
 * release URL needs (the signer's fid, the username) is read before the cast, so nothing that can
 * fail runs between Neynar's accept and the worker's write.
 */
export function createWarpcastAdapter(options: AdapterOptions, neynar: NeynarEndpoint): PlatformAdapter {
  const apiUrl = neynar.apiUrl.replace(trailingSlashes, '');

  function call(
    credential: WarpcastCredential,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    query: Record<string, string>,
    json?: unknown,
  ): Promise<unknown> {
    const search = new URLSearchParams(query).toString();
    return platformRequest({
      provider,
      serverName: 'Neynar',
      method,
      url: `${apiUrl}${path}${search === '' ? '' : `?${search}`}`,
      headers: { 'x-api-key': credential.apiKey },
      ...(json === undefined ? {} : { json }),
      timeoutMs: options.timeoutMs,
      errorMessage: neynarErrorMessage,
      classify: classifyNeynarRefusal,
      retryAfterMs: neynarRetryAfterMs,
    });
  }

  /** The signer's account; a signer that can no longer cast needs the user to connect again. */
  async function signerFid(credential: WarpcastCredential): Promise<number> {
    const signer = signerResponse.safeParse(
      await call(credential, 'GET', '/v2/farcaster/signer', { signer_uuid: credential.signerUuid }),
    );
    if (!signer.success) throw unreadable('a signer');
    if (signer.data.status !== 'approved' || signer.data.fid === undefined) {
      const status = signer.data.status.replace('_', ' ');
      const message = `Neynar: the signer is ${status} and cannot cast; connect the account again`;
      throw new PlatformError({ kind: 'disconnected', provider, message });
    }
    return signer.data.fid;
  }

  async function signerUser(credential: WarpcastCredential): Promise<z.infer<typeof usersResponse>['users'][number]> {
    const fid = await signerFid(credential);
    const users = usersResponse.safeParse(
      await call(credential, 'GET', '/v2/farcaster/user/bulk', { fids: String(fid) }),
    );
    if (!users.success) throw unreadable('a user');
    const me = users.data.users.find((user) => user.fid === fid);
    if (me === undefined) throw unreadable(`no user for fid ${String(fid)}`);
    return me;
  }

  async function caster(credential: WarpcastCredential): Promise<Caster> {
    const { fid, username } = await signerUser(credential);
    return { fid, username };
  }

  async function cast(input: PublishInput, parentHash: string | null): Promise<PublishResult> {
    // Readers' apps fetch each file from its URL; the protocol takes at most 256 bytes per URL.
    const embeds = input.media.map((media) => ({ url: media.url }));
    if (embeds.some((embed) => Buffer.byteLength(embed.url) > maxEmbedUrlBytes)) {
      const message = `Warpcast takes embed URLs of at most ${String(maxEmbedUrlBytes)} bytes; `
        + 'this server\'s media address makes longer ones';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    const credential = readWarpcastCredential(input.channel.accessToken);
    const settings = warpcastSettings.parse(input.settings);
    const author = await caster(credential);
    const place = parentHash === null
      ? (settings.channel_id === undefined ? {} : { channel_id: settings.channel_id })
      // Thread parts answer the same account's previous cast; the fid lets Neynar find it before it is indexed.
      : { parent: parentHash, parent_author_fid: author.fid };
    const answer = postCastResponse.safeParse(await call(credential, 'POST', '/v2/farcaster/cast', {}, {
      signer_uuid: credential.signerUuid,
      text: input.content,
      ...(embeds.length === 0 ? {} : { embeds }),
      ...place,
      idem: neynarIdem(input.idempotencyKey),
    }));
    if (!answer.success || answer.data.success === false) throw unreadable('a cast');
    const { hash } = answer.data.cast;
    return { releaseId: hash, releaseURL: castUrl(author.username, hash) };
  }

  function channels(raw: unknown): unknown {
    const parsed = channelsResponse.safeParse(raw);
    if (!parsed.success) throw unreadable('channels');
    return parsed.data.channels.map((channel) => ({
      id: channel.id,
      name: channel.name ?? channel.id,
      url: channel.url ?? null,
      imageUrl: channel.image_url ?? null,
      followerCount: channel.follower_count ?? null,
    }));
  }

  return {
    provider,
    publish: (input: PublishInput) => cast(input, null),
    comment: (input: CommentInput) => cast(input, input.parentReleaseId),

    /**
     * DELETE /v2/farcaster/cast {signer_uuid, target_hash}: Neynar submits the removal of the
     * account's cast to the network with the approved signer; its 404 for the cast means gone.
     */
    async remove(channel: ChannelCredentials, { releaseId }: RemovalTarget) {
      const credential = readWarpcastCredential(channel.accessToken);
      const json = { signer_uuid: credential.signerUuid, target_hash: releaseId };
      try {
        await call(credential, 'DELETE', '/v2/farcaster/cast', {}, json);
      } catch (error) {
        if (error instanceof PlatformError && error.httpStatus === 404 && /cast/i.test(error.message)) return;
        throw error;
      }
    },

    async recentContent(channel: ChannelCredentials) {
      const credential = readWarpcastCredential(channel.accessToken);
      const fid = await signerFid(credential);
      const feed = feedResponse.safeParse(
        await call(credential, 'GET', '/v2/farcaster/feed/user/casts', { fid: String(fid), limit: '20' }),
      );
      if (!feed.success) throw unreadable('casts');
      return feed.data.casts.map((item) => ({ id: item.hash, url: castUrl(item.author.username, item.hash) }));
    },

    analytics: {
      async account(channel) {
        const me = await signerUser(readWarpcastCredential(channel.accessToken));
        return [
          { label: 'Followers', value: me.follower_count ?? 0 },
          { label: 'Following', value: me.following_count ?? 0 },
        ];
      },
      async post(channel, releaseId) {
        const credential = readWarpcastCredential(channel.accessToken);
        const query = { identifier: releaseId, type: 'hash' };
        const found = castLookupResponse.safeParse(await call(credential, 'GET', '/v2/farcaster/cast', query));
        if (!found.success) throw unreadable('a cast');
        const { reactions, replies } = found.data.cast;
        return [
          { label: 'Likes', value: reactions.likes_count },
          { label: 'Recasts', value: reactions.recasts_count },
          { label: 'Replies', value: replies.count },
        ];
      },
    },

    tools: {
      async searchChannels(channel, data) {
        const wanted = searchData.safeParse(data);
        if (!wanted.success) {
          const message = wanted.error.issues.map((issue) => issue.message).join('; ');
          throw new PlatformError({ kind: 'permanent', provider, message });
        }
        const credential = readWarpcastCredential(channel.accessToken);
        const { q, limit } = wanted.data;
        const query = { q, ...(limit === undefined ? {} : { limit: String(limit) }) };
        return channels(await call(credential, 'GET', '/v2/farcaster/channel/search', query));
      },

      async userChannels(channel) {
        const credential = readWarpcastCredential(channel.accessToken);
        const fid = await signerFid(credential);
        const query = { fid: String(fid), limit: '100' };
        return channels(await call(credential, 'GET', '/v2/farcaster/user/channels', query));
      },
    },
  };
}
