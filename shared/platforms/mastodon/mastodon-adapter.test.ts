import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MastodonSimulator } from '../../../test/simulators/mastodon-simulator.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { PlatformError } from '../platform-error.ts';
import { createMastodonAdapter } from './mastodon-adapter.ts';

describe('Mastodon adapter against the simulator', () => {
  const simulator = new MastodonSimulator();
  const adapter = createMastodonAdapter({ timeoutMs: 1_000 });
  let token: string;
  const channel = (accessToken: string) => ({ channelId: 'c1', accessToken, instanceUrl: simulator.origin });

  beforeAll(async () => {
    await simulator.start();
    token = simulator.addAccount('alice');
  });
  afterAll(async () => { await simulator.stop(); });

  async function failure(promise: Promise<unknown>): Promise<PlatformError> {
    const error: unknown = await promise.then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformError);
    return error as PlatformError;
  }

  it('posts a status with the bearer token, settings and Idempotency-Key, and returns its id and URL', async () => {
    const result = await adapter.publish({ channel: channel(token), content: 'Hello fediverse', media: [], settings: { visibility: 'unlisted', language: 'en' }, idempotencyKey: 'sps-post-1' });
    const status = simulator.statuses.at(-1);
    expect(status).toMatchObject({ text: 'Hello fediverse', visibility: 'unlisted', language: 'en', in_reply_to_id: null });
    expect(result).toEqual({ releaseId: status?.id, releaseURL: status?.url });
    const request = simulator.statusesCreatedRequests().at(-1);
    expect(request?.headers.authorization).toBe(`Bearer ${token}`);
    expect(request?.headers['idempotency-key']).toBe('sps-post-1');
  });

  it('replies to the previous part with in_reply_to_id', async () => {
    const first = await adapter.publish({ channel: channel(token), content: 'Thread 1/2', media: [], settings: {}, idempotencyKey: 'sps-post-2' });
    const reply = await adapter.comment({ channel: channel(token), content: 'Thread 2/2', media: [], settings: {}, idempotencyKey: 'sps-post-3', parentReleaseId: first.releaseId });
    expect(simulator.statuses.find((status) => status.id === reply.releaseId)?.in_reply_to_id).toBe(first.releaseId);
  });

  it('gets the same status back when a call is repeated with the same Idempotency-Key', async () => {
    const before = simulator.statuses.length;
    const first = await adapter.publish({ channel: channel(token), content: 'Once only', media: [], settings: {}, idempotencyKey: 'sps-post-4' });
    const again = await adapter.publish({ channel: channel(token), content: 'Once only', media: [], settings: {}, idempotencyKey: 'sps-post-4' });
    expect(again).toEqual(first);
    expect(simulator.statuses.length).toBe(before + 1);
  });

  it('classifies an invalid token as a disconnected channel', async () => {
    const error = await failure(adapter.publish({ channel: channel('wrong'), content: 'x', media: [], settings: {}, idempotencyKey: 'k5' }));
    expect(error.kind).toBe('disconnected');
    expect(error.httpStatus).toBe(401);
    expect(error.message).toBe('The access token is invalid');
  });

  it('classifies a 422 as permanent with Mastodon\'s message', async () => {
    const error = await failure(adapter.publish({ channel: channel(token), content: 'x'.repeat(501), media: [], settings: {}, idempotencyKey: 'k6' }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/character limit of 500/);
  });

  it('classifies throttling and server errors as retryable, with Retry-After', async () => {
    simulator.failNext({ status: 429, body: { error: 'Too many requests' }, headers: { 'Retry-After': '30' } }, { status: 503, body: { error: 'Service unavailable' } });
    const throttled = await failure(adapter.publish({ channel: channel(token), content: 'x', media: [], settings: {}, idempotencyKey: 'k7' }));
    expect(throttled).toMatchObject({ kind: 'retryable', httpStatus: 429, retryAfterMs: 30_000, message: 'Too many requests' });
    const unavailable = await failure(adapter.publish({ channel: channel(token), content: 'x', media: [], settings: {}, idempotencyKey: 'k8' }));
    expect(unavailable).toMatchObject({ kind: 'retryable', httpStatus: 503 });
  });

  it('classifies a timeout and an unreachable instance as retryable', async () => {
    simulator.failNext({ delayMs: 1_500 });
    const slow = await failure(adapter.publish({ channel: channel(token), content: 'x', media: [], settings: {}, idempotencyKey: 'k9' }));
    expect(slow.kind).toBe('retryable');
    expect(slow.message).toMatch(/did not answer within 1000 ms/);
    const closedOrigin = `http://127.0.0.1:${await freePort()}`;
    const closed = await failure(adapter.publish({ channel: { channelId: 'c', accessToken: token, instanceUrl: closedOrigin }, content: 'x', media: [], settings: {}, idempotencyKey: 'k10' }));
    expect(closed.kind).toBe('retryable');
    expect(closed.message).toMatch(/could not reach mastodon: ECONNREFUSED/);
  });

  it('uploads attached media first (waiting for videos to finish processing) and attaches them with alt text', async () => {
    const file = (kind: 'image' | 'video', bytes: Buffer, alt: string | null) => ({
      kind, mimeType: kind === 'image' ? 'image/png' : 'video/mp4', size: bytes.length, fileName: `${kind}.bin`, alt, open: () => Promise.resolve(Readable.from([bytes])),
    });
    const image = Buffer.from('not really a png but bytes all the same');
    const withImage = await adapter.publish({ channel: channel(token), content: 'with a picture', media: [file('image', image, 'A red square')], settings: {}, idempotencyKey: 'k-media-1' });
    const status = simulator.statuses.find((candidate) => candidate.id === withImage.releaseId);
    const attached = simulator.media.find((media) => media.id === status?.mediaIds[0]);
    expect(attached).toMatchObject({ type: 'image', description: 'A red square' });
    expect(attached?.bytes.equals(image)).toBe(true);

    const video = Buffer.alloc(200_000, 3);
    const withVideo = await adapter.publish({ channel: channel(token), content: '', media: [file('video', video, null)], settings: {}, idempotencyKey: 'k-media-2' });
    const videoStatus = simulator.statuses.find((candidate) => candidate.id === withVideo.releaseId);
    expect(simulator.media.find((media) => media.id === videoStatus?.mediaIds[0])?.bytes.length).toBe(200_000);
    expect(simulator.requests.some((request) => request.method === 'GET' && request.path.startsWith('/api/v1/media/'))).toBe(true);
  });

  it('refuses settings Mastodon does not accept before calling it', async () => {
    const calls = simulator.requests.length;
    await expect(adapter.publish({ channel: channel(token), content: 'x', media: [], settings: { visibility: 'everyone' }, idempotencyKey: 'k11' })).rejects.toThrow();
    expect(simulator.requests.length).toBe(calls);
  });
});
