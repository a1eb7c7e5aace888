import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MastodonSimulator } from '../../../test/simulators/mastodon/mastodon-simulator.ts';
import { sampleMp4, samplePng } from '../../../test/support/sample-media.ts';
import { isPublicAddress } from '../../net/address-policy.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { PlatformError } from '../kit/platform-error.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia, PublishResult } from '../kit/platform-adapter.ts';
import { createMastodonAdapter } from './adapter.ts';

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error: unknown = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

/** A port on `host` nothing listens on (bound by the OS, then released). */
async function closedPort(host = '127.0.0.1'): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return port;
}

function file(kind: 'image' | 'video', bytes: Buffer, alt: string | null = null): PublishMedia {
  const mimeType = kind === 'image' ? 'image/png' : 'video/mp4';
  const open = () => Promise.resolve(Readable.from([bytes]));
  return {
    kind,
    mimeType,
    size: bytes.length,
    fileName: `${kind}.bin`,
    alt,
    url: `http://127.0.0.1/uploads/${kind}.bin`,
    open,
  };
}

interface PublishOptions {
  media?: PublishMedia[];
  settings?: Record<string, unknown>;
}

/** Publishes `content` with the Idempotency-Key `key`, no media and no settings unless given. */
function publish(
  adapter: PlatformAdapter,
  channel: ChannelCredentials,
  content: string,
  key: string,
  options: PublishOptions = {},
): Promise<PublishResult> {
  const { media = [], settings = {} } = options;
  return adapter.publish({ channel, content, media, settings, idempotencyKey: key, checkpoint: memoryCheckpoint() });
}

const privateNetworkAllowed = connectionPolicyFor(true);
const outsideScopes = 'This action is outside the authorized scopes';

describe('Mastodon adapter against the simulator', () => {
  const simulator = new MastodonSimulator();
  const adapter = createMastodonAdapter({ timeoutMs: 1_000, userHosts: privateNetworkAllowed });
  let token: string;
  const channel = (accessToken: string): ChannelCredentials => ({
    channelId: 'c1',
    accessToken,
    instanceUrl: simulator.origin,
  });
  const post = (content: string, key: string, options: PublishOptions = {}, accessToken = token) =>
    publish(adapter, channel(accessToken), content, key, options);

  beforeAll(async () => {
    await simulator.start();
    token = simulator.addAccount('alice');
  });
  afterAll(async () => {
    await simulator.stop();
  });

  it('posts a status with the bearer token, settings and Idempotency-Key, and returns its id and URL', async () => {
    const settings = { visibility: 'unlisted', language: 'en' };
    const result = await post('Hello fediverse', 'sps-post-1', { settings });
    const status = simulator.statuses.at(-1);
    expect(status).toMatchObject({
      text: 'Hello fediverse',
      visibility: 'unlisted',
      language: 'en',
      in_reply_to_id: null,
    });
    expect(result).toEqual({ releaseId: status?.id, releaseURL: status?.url });
    const request = simulator.statusesCreatedRequests().at(-1);
    expect(request?.headers.authorization).toBe(`Bearer ${token}`);
    expect(request?.headers['idempotency-key']).toBe('sps-post-1');
  });

  it('replies to the previous part with in_reply_to_id', async () => {
    const first = await post('Thread 1/2', 'sps-post-2');
    const reply = await adapter.comment({
      channel: channel(token),
      content: 'Thread 2/2',
      media: [],
      settings: {},
      idempotencyKey: 'sps-post-3',
      checkpoint: memoryCheckpoint(),
      parentReleaseId: first.releaseId,
    });
    expect(simulator.statuses.find((status) => status.id === reply.releaseId)?.in_reply_to_id).toBe(first.releaseId);
  });

  it('reads the account\'s and a status\'s counters for analytics', async () => {
    const reader = simulator.addAccount('counted');
    simulator.setFollowers('counted', 42);
    const first = await post('Counted 1/2', 'sps-post-counted-1', {}, reader);
    await adapter.comment({
      channel: channel(reader),
      content: 'Counted 2/2',
      media: [],
      settings: {},
      idempotencyKey: 'sps-post-counted-2',
      checkpoint: memoryCheckpoint(),
      parentReleaseId: first.releaseId,
    });
    simulator.react(first.releaseId, { favourites: 7, reblogs: 3 });
    expect(await adapter.analytics?.account(channel(reader))).toEqual([
      { label: 'Followers', value: 42 },
      { label: 'Following', value: 0 },
      { label: 'Posts', value: 2 },
    ]);
    expect(await adapter.analytics?.post(channel(reader), first.releaseId)).toEqual([
      { label: 'Favourites', value: 7 },
      { label: 'Boosts', value: 3 },
      { label: 'Replies', value: 1 },
    ]);
  });

  it('gets the same status back when a call is repeated with the same Idempotency-Key', async () => {
    const before = simulator.statuses.length;
    const first = await post('Once only', 'sps-post-4');
    const again = await post('Once only', 'sps-post-4');
    expect(again).toEqual(first);
    expect(simulator.statuses.length).toBe(before + 1);
  });

  it('classifies an invalid token as a disconnected channel', async () => {
    const error = await failure(post('x', 'k5', {}, 'wrong'));
    expect(error.kind).toBe('disconnected');
    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('The access token is invalid');
  });

  it('classifies a token without the write scopes as a disconnected channel, for statuses and for media', async () => {
    const readOnly = simulator.addAccount('reader', { scopes: ['read'] });
    const statusOnly = simulator.addAccount('texter', { scopes: ['read', 'write:statuses'] });
    const fineGrained = simulator.addAccount('careful', {
      scopes: ['write:statuses', 'write:media', 'read:accounts'],
    });
    const refused = await failure(post('no scope', 'k-scope-1', {}, readOnly));
    expect(refused).toMatchObject({ kind: 'disconnected', httpStatus: 403, message: outsideScopes });
    await post('text is fine', 'k-scope-2', {}, statusOnly);
    const noMedia = await failure(
      post('with media', 'k-scope-3', { media: [file('image', samplePng())] }, statusOnly),
    );
    expect(noMedia).toMatchObject({ kind: 'disconnected', httpStatus: 403, message: outsideScopes });
    expect(simulator.statuses.some((status) => status.text === 'no scope' || status.text === 'with media')).toBe(
      false,
    );
    const done = await post('scoped right', 'k-scope-4', { media: [file('image', samplePng())] }, fineGrained);
    expect(simulator.statuses.find((status) => status.id === done.releaseId)?.mediaIds).toHaveLength(1);
  });

  it('classifies a 422 as permanent with Mastodon\'s message', async () => {
    const error = await failure(post('x'.repeat(501), 'k6'));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/character limit of 500/);
  });

  it('classifies server errors as retryable, without reading the rate-limit reset every answer carries', async () => {
    const reset = new Date(Date.now() + 120_000).toISOString();
    const body = { error: 'Service unavailable' };
    simulator.failNext({ status: 503, body, headers: { 'X-RateLimit-Reset': reset } });
    const unavailable = await failure(post('x', 'k8'));
    expect(unavailable).toMatchObject({
      kind: 'retryable',
      httpStatus: 503,
      retryAfterMs: null,
      message: body.error,
    });
  });

  it('classifies a timeout and an unreachable instance as retryable, no system error in the message', async () => {
    simulator.failNext({ delayMs: 1_500 });
    const slow = await failure(post('x', 'k9'));
    expect(slow.kind).toBe('retryable');
    expect(slow.message).toBe('the Mastodon instance did not answer within 1000 ms');
    const closedChannel = {
      channelId: 'c',
      accessToken: token,
      instanceUrl: `http://127.0.0.1:${await closedPort()}`,
    };
    const closed = await failure(publish(adapter, closedChannel, 'x', 'k10'));
    expect(closed).toMatchObject({ kind: 'retryable', message: 'could not reach the Mastodon instance' });
    // The code stays on the cause, which the workers log.
    expect((closed.cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('uploads media first (waiting for videos to be processed) and attaches them with alt text', async () => {
    const image = samplePng();
    const withImage = await post('with a picture', 'k-media-1', { media: [file('image', image, 'A red square')] });
    const status = simulator.statuses.find((candidate) => candidate.id === withImage.releaseId);
    const attached = simulator.media.find((media) => media.id === status?.mediaIds[0]);
    expect(attached).toMatchObject({ type: 'image', mimeType: 'image/png', description: 'A red square' });
    expect(attached?.bytes.equals(image)).toBe(true);

    const withVideo = await post('', 'k-media-2', { media: [file('video', sampleMp4(200_000))] });
    const videoStatus = simulator.statuses.find((candidate) => candidate.id === withVideo.releaseId);
    expect(simulator.media.find((media) => media.id === videoStatus?.mediaIds[0])?.bytes.length).toBe(200_000);
    expect(
      simulator.requests.some((request) => request.method === 'GET' && request.path.startsWith('/api/v1/media/')),
    ).toBe(true);
  });

  it('fails a post whose media Mastodon refuses (not a media file, a video with an image) as permanent', async () => {
    const notMedia = file('image', Buffer.from('not really a png'));
    const bogus = await failure(post('bogus', 'k-media-3', { media: [notMedia] }));
    const invalidType = 'Validation failed: File content type is invalid, File is invalid';
    expect(bogus).toMatchObject({ kind: 'permanent', httpStatus: 422, message: invalidType });
    const mixedMedia = [file('image', samplePng()), file('video', sampleMp4())];
    const mixed = await failure(post('mixed', 'k-media-4', { media: mixedMedia }));
    const noMixing = 'Cannot attach a video to a post that already contains images';
    expect(mixed).toMatchObject({ kind: 'permanent', httpStatus: 422, message: noMixing });
    expect(simulator.statuses.some((status) => status.text === 'bogus' || status.text === 'mixed')).toBe(false);
  });

  it('refuses settings Mastodon does not accept before calling it', async () => {
    const calls = simulator.requests.length;
    await expect(post('x', 'k11', { settings: { visibility: 'everyone' } })).rejects.toThrow();
    expect(simulator.requests.length).toBe(calls);
  });
});

describe('Mastodon adapter when the instance throttles', () => {
  // Two statuses an hour: the third is refused the way Mastodon refuses it.
  const simulator = new MastodonSimulator({ rateLimits: { statuses: { limit: 2, periodMs: 3_600_000 } } });
  const adapter = createMastodonAdapter({ timeoutMs: 2_000, userHosts: privateNetworkAllowed });

  beforeAll(async () => {
    await simulator.start();
  });
  afterAll(async () => {
    await simulator.stop();
  });

  it('turns X-RateLimit-Reset into retryAfterMs', async () => {
    const channel = { channelId: 'c', accessToken: simulator.addAccount('busy'), instanceUrl: simulator.origin };
    await publish(adapter, channel, 'one', 'rl-1');
    await publish(adapter, channel, 'two', 'rl-2');
    const before = Date.now();
    const throttled = await failure(publish(adapter, channel, 'three', 'rl-3'));
    const after = Date.now();
    // Windows are aligned on the hour, as Rack::Attack aligns them.
    const resetAt = (Math.floor(before / 3_600_000) + 1) * 3_600_000;
    expect(throttled).toMatchObject({ kind: 'retryable', httpStatus: 429, message: 'Too many requests' });
    expect(throttled.retryAfterMs).toBeGreaterThanOrEqual(Math.max(1_000, resetAt - after));
    expect(throttled.retryAfterMs).toBeLessThanOrEqual(Math.max(1_000, resetAt - before));
    expect(simulator.statuses.map((status) => status.text)).toEqual(['one', 'two']);
  });
});

describe('Mastodon adapter and DNS rebinding', () => {
  // The instance's "public" address is 127.0.0.2 (the test policy allows it, and anything
  // public); 127.0.0.1 stands for the inside of our network, where a service listens on the
  // same port and must never be called.
  let inside: Server;
  let insideHits = 0;
  let simulator: MastodonSimulator;
  let token: string;
  const answers: string[][] = [];
  let lookups = 0;
  const policy = {
    isAllowedAddress: (address: string) => address === '127.0.0.2' || isPublicAddress(address),
    allowHttp: true,
    resolve: (hostname: string) => {
      lookups += 1;
      expect(hostname).toBe('mastodon.rebind.test');
      return Promise.resolve(answers.shift() ?? ['127.0.0.1']);
    },
  };
  const adapter = createMastodonAdapter({ timeoutMs: 2_000, userHosts: policy });
  const unreachable = 'could not reach the Mastodon instance';

  beforeAll(async () => {
    inside = createHttpServer((_request, response) => {
      insideHits += 1;
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ id: '1', uri: 'inside' }));
    });
    await new Promise<void>((resolve) => inside.listen(0, '127.0.0.1', resolve));
    const { port } = inside.address() as AddressInfo;
    simulator = await new MastodonSimulator({ host: '127.0.0.2', port }).start();
    token = simulator.addAccount('rebound');
  });
  afterAll(async () => {
    await simulator.stop();
    inside.closeAllConnections();
    await new Promise<void>((resolve) =>
      inside.close(() => {
        resolve();
      }),
    );
  });

  it('refuses a call once the instance name resolves to a private address, checking at every connection', async () => {
    const instanceUrl = `http://mastodon.rebind.test:${simulator.port}`;
    const channel = { channelId: 'c', accessToken: token, instanceUrl };
    answers.push(['127.0.0.2'], ['127.0.0.1']);
    const first = await publish(adapter, channel, 'while the name is public', 'dns-1');
    expect(simulator.statuses.find((status) => status.id === first.releaseId)?.text).toBe('while the name is public');

    const refused = await failure(publish(adapter, channel, 'after rebinding', 'dns-2'));
    expect(refused).toMatchObject({ kind: 'retryable', message: unreachable });
    // The refused address is in the cause's own cause: the logs show it, no message does.
    expect(refused.cause).toMatchObject({
      message: 'mastodon.rebind.test resolves to a private network address',
      cause: { message: 'mastodon.rebind.test resolved to 127.0.0.1; refused 127.0.0.1' },
    });
    expect(lookups).toBe(2);
    expect(insideHits).toBe(0);
    expect(simulator.statuses.some((status) => status.text === 'after rebinding')).toBe(false);
  });

  it('refuses a private literal address without connecting', async () => {
    const before = lookups;
    const instanceUrl = `http://127.0.0.1:${simulator.port}`;
    const refused = await failure(adapter.recentContent({ channelId: 'c', accessToken: token, instanceUrl }));
    expect(refused.message).toBe(unreachable);
    expect(insideHits).toBe(0);
    expect(lookups).toBe(before);
  });

  it('gives the same message for a refused address, a refused port and an unresolvable name', async () => {
    // The real public-only policy (over plain http, which the loopback servers speak).
    const publicOnly = { ...connectionPolicyFor(false), allowHttp: true };
    const strict = createMastodonAdapter({ timeoutMs: 2_000, userHosts: publicOnly });
    const attempt = (on: PlatformAdapter, instanceUrl: string) =>
      failure(on.recentContent({ channelId: 'c', accessToken: token, instanceUrl }));
    const refusals = await Promise.all([
      attempt(strict, `http://localhost:${simulator.port}`),
      attempt(strict, `http://[::ffff:7f00:1]:${simulator.port}`),
      attempt(strict, 'http://sps-nowhere.invalid'),
      attempt(adapter, `http://127.0.0.2:${await closedPort('127.0.0.2')}`),
    ]);
    expect(new Set(refusals.map((error) => error.message))).toEqual(new Set([unreachable]));
    expect(insideHits).toBe(0);
  });
});
