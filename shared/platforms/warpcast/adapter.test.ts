import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNeynarSimulator, type NeynarSimulator } from '../../../test/simulators/warpcast/neynar-simulator.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { closedOrigin } from '../../../test/support/free-port.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput } from '../kit/platform-adapter.ts';
import { castUrl, createWarpcastAdapter, neynarIdem } from './adapter.ts';
import { encodeWarpcastCredential } from './credential.ts';

const apiKey = 'NEYNAR-APP-KEY-1';
const approved = '19d0c5fd-9b33-4a48-a0e2-bc7b0555baec';
const revoked = '39d0c5fd-9b33-4a48-a0e2-bc7b0555baec';
const longCaster = '49d0c5fd-9b33-4a48-a0e2-bc7b0555baec';
const fid = 3621;

let neynar: NeynarSimulator;
let adapter: PlatformAdapter;

function channel(signerUuid = approved, key = apiKey): ChannelCredentials {
  return { channelId: 'c1', accessToken: encodeWarpcastCredential({ apiKey: key, signerUuid }), instanceUrl: null };
}

let keys = 0;
/** A publish input with a key of its own, as each post part has. */
function part(content: string, extra: Partial<PublishInput> = {}): PublishInput {
  keys += 1;
  const idempotencyKey = `sps-post-part${String(keys)}`;
  const checkpoint = memoryCheckpoint();
  return { channel: channel(), content, media: [], settings: {}, idempotencyKey, checkpoint, ...extra };
}

beforeAll(async () => {
  neynar = await startNeynarSimulator();
  neynar.addApiKey(apiKey);
  neynar.addSigner({ uuid: approved, apiKey, status: 'approved', fid });
  neynar.addSigner({ uuid: revoked, apiKey, status: 'revoked', fid });
  neynar.addSigner({ uuid: longCaster, apiKey, status: 'approved', fid: 99 });
  neynar.addUser({ fid, username: 'alice', followers: 1_234 });
  neynar.addUser({ fid: 99, username: 'bob.eth' });
  neynar.allowLongCasts(99);
  neynar.addChannel({ id: 'neynar', name: 'Neynar', url: 'chain://eip155:1/erc721:0xneynar', followers: [fid] });
  neynar.addChannel({ id: 'farcaster', name: 'Farcaster', url: 'https://farcaster.xyz', followers: [] });
  adapter = createWarpcastAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, { apiUrl: neynar.url });
});

afterAll(async () => {
  await neynar.close();
});

describe('warpcast adapter: publishing', () => {
  it('casts the text with the signer and links the cast under the author\'s username', async () => {
    const input = part('Hello Farcaster ✨');
    const result = await adapter.publish(input);
    const made = neynar.casts.at(-1);
    expect(made).toMatchObject({ fid, text: 'Hello Farcaster ✨', parentHash: null, parentUrl: null });
    expect(result.releaseId).toBe(made?.hash);
    expect(result.releaseURL).toBe(`https://farcaster.xyz/alice/${result.releaseId.slice(0, 10)}`);
    expect(made?.idem).toBe(neynarIdem(input.idempotencyKey));
    expect(made?.idem).toMatch(/^[0-9a-f]{16}$/);
  });

  it('puts the first cast in the post\'s channel and chains thread parts as replies outside it', async () => {
    const settings = { channel_id: 'neynar' };
    const root = await adapter.publish(part('Thread 1/3', { settings }));
    const second = await adapter.comment({ ...part('Thread 2/3', { settings }), parentReleaseId: root.releaseId });
    const third = await adapter.comment({ ...part('Thread 3/3', { settings }), parentReleaseId: second.releaseId });
    const thread = neynar.casts.filter((cast) => cast.text.startsWith('Thread'));
    expect(thread.map((cast) => [cast.text, cast.parentUrl, cast.parentHash, cast.parentAuthorFid])).toEqual([
      ['Thread 1/3', 'chain://eip155:1/erc721:0xneynar', null, null],
      ['Thread 2/3', null, root.releaseId, fid],
      ['Thread 3/3', null, second.releaseId, fid],
    ]);
    expect(third.releaseId).toBe(thread[2]?.hash);
  });

  it('answers a repeated part with the cast Neynar already made for its idem', async () => {
    const input = part('Sent twice');
    const first = await adapter.publish(input);
    const again = await adapter.publish(input);
    expect(again).toEqual(first);
    expect(neynar.casts.filter((cast) => cast.text === 'Sent twice')).toHaveLength(1);
    const idem = neynarIdem(input.idempotencyKey);
    expect(neynar.idemsFor('Sent twice')).toEqual([idem, idem]);
  });

  it('makes a cast whose answer was lost only once when the part is retried', async () => {
    const input = part('Answer lost');
    const lostBefore = neynar.lostResponses;
    neynar.failNext({ loseResponse: true });
    const error = await platformFailure(adapter.publish(input));
    expect(error.kind).toBe('retryable');
    expect(neynar.lostResponses).toBe(lostBefore + 1);
    const retried = await adapter.publish(input);
    const made = neynar.casts.filter((cast) => cast.text === 'Answer lost');
    expect(made).toHaveLength(1);
    expect(retried.releaseId).toBe(made[0]?.hash);
  });

  it('embeds attached files by their public URLs, which readers\' apps fetch', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const file = (url: string) => ({
      kind: 'image' as const, mimeType: 'image/png', size: png.length, fileName: 'a.png', alt: null, url,
      open: () => Promise.resolve(Readable.from([png])),
    });
    const media = [file('https://media.example/2026/11/25/a.png'), file('https://media.example/2026/11/25/b.png')];
    await adapter.publish(part('With pictures', { media }));
    expect(neynar.casts.at(-1)).toMatchObject({
      text: 'With pictures',
      embeds: [{ url: 'https://media.example/2026/11/25/a.png' }, { url: 'https://media.example/2026/11/25/b.png' }],
    });

    const long = [file(`https://media.example/${'x'.repeat(250)}.png`)];
    const error = await platformFailure(adapter.publish(part('With a long address', { media: long })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('at most 256 bytes');
    expect(neynar.idemsFor('With a long address')).toEqual([]);
  });

  it('shows Neynar\'s refusal of text over 320 bytes, and takes 1024 from an account with long casts', async () => {
    const long = 'é'.repeat(161);
    const error = await platformFailure(adapter.publish(part(long)));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Neynar: text must be at most 320 bytes, got 322 (text)');
    const result = await adapter.publish(part(long, { channel: channel(longCaster) }));
    expect(result.releaseURL).toBe(castUrl('bob.eth', result.releaseId));
  });

  it('fails a reply to a cast that does not exist, without disconnecting the channel', async () => {
    const parentReleaseId = `0x${'0'.repeat(40)}`;
    const error = await platformFailure(adapter.comment({ ...part('Orphan'), parentReleaseId }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Neynar: Parent cast not found (parent)');
  });

  it('fails a cast to an unknown channel as permanent', async () => {
    const error = await platformFailure(adapter.publish(part('Nowhere', { settings: { channel_id: 'no-such' } })));
    expect(error).toMatchObject({ kind: 'permanent', message: 'Neynar: Channel not found (channel_id)' });
  });
});

describe('the Neynar simulator, held to Neynar\'s description', () => {
  it('refuses a field the cast does not take as Neynar refuses a bad field, and casts nothing', async () => {
    const before = neynar.casts.length;
    const answer = await fetch(`${neynar.url}/v2/farcaster/cast`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ signer_uuid: approved, text: 'Misspelled', channelId: 'neynar' }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      message: 'body.channelId is not a field of the operation',
      code: 'InvalidField',
      property: 'channelId',
      status: 400,
    });
    expect(neynar.casts).toHaveLength(before);
  });
});

describe('warpcast adapter: analytics', () => {
  it('reads the account\'s followers and a cast\'s likes, recasts and replies', async () => {
    const root = await adapter.publish(part('Counted cast'));
    await adapter.comment({ ...part('Counted reply'), parentReleaseId: root.releaseId });
    const made = neynar.casts.find((cast) => cast.hash === root.releaseId);
    if (made === undefined) throw new Error('the cast was not made');
    made.likes = 12;
    made.recasts = 4;
    expect(await adapter.analytics?.account(channel())).toEqual([
      { label: 'Followers', value: 1_234 }, { label: 'Following', value: 0 },
    ]);
    expect(await adapter.analytics?.post(channel(), root.releaseId)).toEqual([
      { label: 'Likes', value: 12 }, { label: 'Recasts', value: 4 }, { label: 'Replies', value: 1 },
    ]);
  });

  it('fails a read of a cast Neynar does not know as permanent', async () => {
    const unknown = `0x${'0'.repeat(40)}`;
    await expect(adapter.analytics?.post(channel(), unknown)).rejects.toMatchObject({ kind: 'permanent' });
  });
});

describe('warpcast adapter: errors', () => {
  it('flags the channel when the API key is refused', async () => {
    const error = await platformFailure(adapter.publish(part('Bad key', { channel: channel(approved, 'WRONG') })));
    expect(error).toMatchObject({ kind: 'disconnected', httpStatus: 401 });
    expect(error.message).toBe('Neynar: Unauthorized: invalid or missing API key');
  });

  it('flags the channel when its signer was revoked, before trying to cast', async () => {
    const error = await platformFailure(adapter.publish(part('Revoked', { channel: channel(revoked) })));
    expect(error.kind).toBe('disconnected');
    expect(error.message).toContain('revoked');
    expect(neynar.idemsFor('Revoked')).toEqual([]);
  });

  it('flags the channel when Neynar refuses the signer at the cast itself', async () => {
    neynar.failNext({
      status: 403,
      body: { code: 'SignerNotApproved', message: 'Signer status is revoked.', property: 'signer_uuid', status: 403 },
    });
    const error = await platformFailure(adapter.publish(part('Revoked meanwhile')));
    expect(error).toMatchObject({ kind: 'disconnected', message: 'Neynar: Signer status is revoked. (signer_uuid)' });
  });

  it('waits out a 429 for as long as Retry-After says', async () => {
    neynar.failNext({
      status: 429, body: { message: 'Rate limit exceeded', status: 429 }, headers: { 'retry-after': '42' },
    });
    const error = await platformFailure(adapter.publish(part('Throttled')));
    expect(error).toMatchObject({ kind: 'retryable', httpStatus: 429, retryAfterMs: 42_000 });
    expect(error.message).toBe('Neynar: Rate limit exceeded');
  });

  it('reads a 429\'s X-RateLimit-Reset as the Unix time the window reopens', async () => {
    const reset = Math.ceil(Date.now() / 1000) + 30;
    const headers = { 'x-ratelimit-reset': String(reset) };
    neynar.failNext({ status: 429, body: { message: 'Rate limit exceeded' }, headers });
    const error = await platformFailure(adapter.publish(part('Throttled by reset')));
    expect(error.kind).toBe('retryable');
    expect(error.retryAfterMs).toBeGreaterThan(28_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(31_000);
  });

  it('retries when Neynar fails or cannot be reached', async () => {
    neynar.failNext({ status: 500, body: { message: 'Internal server error', status: 500 } });
    expect((await platformFailure(adapter.publish(part('Server error')))).kind).toBe('retryable');
    const offline = createWarpcastAdapter(
      { timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, { apiUrl: await closedOrigin() },
    );
    const error = await platformFailure(offline.publish(part('Offline')));
    expect(error).toMatchObject({ kind: 'retryable', message: 'could not reach Neynar' });
  });
});

describe('warpcast adapter: recent casts and tools', () => {
  it('lists the account\'s latest casts with their links, newest first', async () => {
    const made = await adapter.publish(part('Most recent'));
    const recent = await adapter.recentContent(channel());
    expect(recent[0]).toEqual({ id: made.releaseId, url: made.releaseURL });
    expect(recent.length).toBeLessThanOrEqual(20);
    expect(neynar.received.at(-1)?.query.get('limit')).toBe('20');
    expect(neynar.received.at(-1)?.query.get('fid')).toBe(String(fid));
  });

  it('searches channels by name or id', async () => {
    const found = await adapter.tools.searchChannels?.(channel(), { q: 'farc', limit: 5 });
    expect(found).toEqual([{
      id: 'farcaster', name: 'Farcaster', url: 'https://farcaster.xyz',
      imageUrl: expect.any(String) as unknown, followerCount: 0,
    }]);
    const missing = await platformFailure(Promise.resolve(adapter.tools.searchChannels?.(channel(), {})));
    expect(missing.kind).toBe('permanent');
  });

  it('lists the channels the connected account follows', async () => {
    const followed = await adapter.tools.userChannels?.(channel(), {});
    expect(followed).toEqual([expect.objectContaining({ id: 'neynar', url: 'chain://eip155:1/erc721:0xneynar' })]);
  });
});
