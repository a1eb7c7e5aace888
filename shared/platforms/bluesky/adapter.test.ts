import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { startTestBlueskyPds, type PdsAccount, type TestBlueskyPds } from '../../../test/support/bluesky-pds.ts';
import { startFaultProxy, type FaultProxy } from '../../../test/support/fault-proxy.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { makeSmallMedia, type SmallMedia } from '../../../test/support/small-media.ts';
import { platformFailure, testConnectContext } from '../../../test/simulators/kit/connect-context.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { createBlueskyAdapter } from './adapter.ts';
import { blueskyConnect } from './connect.ts';
import { partRecordKey } from './record-key.ts';

const userHosts = connectionPolicyFor(true);
const adapterOptions = { timeoutMs: 5_000, userHosts };

let pds: TestBlueskyPds;
let proxy: FaultProxy;
let alice: PdsAccount;
let bob: PdsAccount;
let files: SmallMedia;
let png: Buffer;
let mp4: Buffer;
// The entryway is never used: every channel here names its PDS, as a self-hosted account does.
const adapter: PlatformAdapter = createBlueskyAdapter(adapterOptions, { apiUrl: 'https://bsky.invalid' });

beforeAll(async () => {
  pds = await startTestBlueskyPds();
  process.stderr.write(`[bluesky adapter test] PDS started in ${String(pds.startedInMs)} ms\n`);
  proxy = await startFaultProxy(pds.url);
  [alice, bob] = await Promise.all([pds.createAccount('alice'), pds.createAccount('bob')]);
  files = makeSmallMedia();
  png = readFileSync(files.png);
  mp4 = readFileSync(files.mp4);
}, 60_000);

afterAll(async () => {
  await proxy.close();
  await pds.close();
  files.remove();
});

/** The channel as connect.ts stores it: the session made with the app password on the PDS `origin`. */
async function channelOf(account: PdsAccount, origin: string = pds.url): Promise<ChannelCredentials> {
  const verified = await blueskyConnect.verify(
    { identifier: account.handle, appPassword: account.appPassword, pdsUrl: origin },
    testConnectContext({ userHosts, timeoutMs: 5_000 }),
  );
  return {
    channelId: `channel-${account.handle}`,
    accessToken: verified.accessToken,
    instanceUrl: verified.instanceUrl,
  };
}

let parts = 0;
function input(channel: ChannelCredentials, content: string, extra: Partial<PublishInput> = {}): PublishInput {
  parts += 1;
  return {
    channel,
    content,
    media: [],
    settings: {},
    idempotencyKey: `sps-post-part-${String(parts)}-${String(Date.now())}`,
    dueAt: new Date(),
    checkpoint: memoryCheckpoint(),
    ...extra,
  };
}

function file(kind: 'image' | 'video', bytes: Buffer, alt: string | null): PublishMedia {
  const mimeType = kind === 'image' ? 'image/png' : 'video/mp4';
  return {
    kind,
    mimeType,
    size: bytes.length,
    fileName: `file.${kind === 'image' ? 'png' : 'mp4'}`,
    alt,
    url: 'https://media.example/file',
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}

const rkeyOf = (uri: string): string => uri.split('/').at(-1) ?? '';

async function recordAt(account: PdsAccount, uri: string) {
  const found = (await pds.posts(account)).find((record) => record.uri === uri);
  expect(found).toBeDefined();
  return found?.value ?? { text: '' };
}

describe('bluesky adapter against the reference PDS', () => {
  it('publishes a post at the record key derived from the part, with the settings\' languages and tags', async () => {
    const channel = await channelOf(alice);
    const part = input(channel, 'Hello from SPS', { settings: { langs: ['en', 'pt-BR'], tags: ['sps'] } });
    const result = await adapter.publish(part);

    const rkey = partRecordKey(part.idempotencyKey, part.dueAt ?? new Date());
    expect(result.releaseId).toBe(`at://${alice.did}/app.bsky.feed.post/${rkey}`);
    expect(result.releaseURL).toBe(`https://bsky.app/profile/alice.test/post/${rkey}`);
    const record = await recordAt(alice, result.releaseId);
    expect(record).toMatchObject({
      $type: 'app.bsky.feed.post',
      text: 'Hello from SPS',
      langs: ['en', 'pt-BR'],
      tags: ['sps'],
    });
    expect(record.facets).toBeUndefined();
  });

  it('marks links, a known mention and hashtags as facets on UTF-8 byte ranges; others stay text', async () => {
    const channel = await channelOf(alice);
    const text = 'Café ☕ with @bob.test and @nobody.test: https://example.com/a?b=1. #café #42 #SPS!';
    const result = await adapter.publish(input(channel, text));

    const record = await recordAt(alice, result.releaseId);
    const facets = record.facets as {
      index: { byteStart: number; byteEnd: number };
      features: Record<string, string>[];
    }[];
    const bytes = Buffer.from(text, 'utf8');
    const covered = facets.map((facet) =>
      bytes.subarray(facet.index.byteStart, facet.index.byteEnd).toString('utf8'),
    );
    expect(covered).toEqual(['@bob.test', 'https://example.com/a?b=1', '#café', '#SPS']);
    expect(facets.map((facet) => facet.features[0])).toEqual([
      { $type: 'app.bsky.richtext.facet#mention', did: bob.did },
      { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a?b=1' },
      { $type: 'app.bsky.richtext.facet#tag', tag: 'café' },
      { $type: 'app.bsky.richtext.facet#tag', tag: 'SPS' },
    ]);
    // "Café ☕ with " is 11 characters but 15 bytes (é is 2, ☕ is 3).
    expect(facets[0]?.index).toEqual({ byteStart: 15, byteEnd: 24 });
  });

  it('uploads images as blobs and embeds them with their alt text and aspect ratio', async () => {
    const channel = await channelOf(alice);
    const media = [file('image', png, 'A test card'), file('image', png, null)];
    const result = await adapter.publish(input(channel, 'Two images', { media }));

    const record = await recordAt(alice, result.releaseId);
    const embed = record.embed as {
      $type: string;
      images: { alt: string; aspectRatio: unknown; image: { ref: { $link: string }; mimeType: string } }[];
    };
    expect(embed.$type).toBe('app.bsky.embed.images');
    expect(embed.images.map((image) => [image.alt, image.aspectRatio, image.image.mimeType])).toEqual([
      ['A test card', { width: 64, height: 48 }, 'image/png'],
      ['', { width: 64, height: 48 }, 'image/png'],
    ]);
    expect(await pds.blob(alice, embed.images[0]?.image.ref.$link ?? '')).toEqual(png);
  });

  it('uploads an MP4 as a blob and embeds it as a video', async () => {
    const channel = await channelOf(alice);
    const result = await adapter.publish(input(channel, 'A clip', { media: [file('video', mp4, 'Test pattern')] }));

    const record = await recordAt(alice, result.releaseId);
    const embed = record.embed as {
      $type: string;
      alt: string;
      video: { ref: { $link: string }; mimeType: string; size: number };
    };
    expect(embed).toMatchObject({
      $type: 'app.bsky.embed.video',
      alt: 'Test pattern',
      video: { mimeType: 'video/mp4', size: mp4.length },
    });
    expect(await pds.blob(alice, embed.video.ref.$link)).toEqual(mp4);
  });

  it('chains a 3-part thread: each reply names the first post as root and the previous one as parent', async () => {
    const channel = await channelOf(alice);
    const first = await adapter.publish(input(channel, 'Thread 1/3'));
    const second = await adapter.comment({ ...input(channel, 'Thread 2/3'), parentReleaseId: first.releaseId });
    const third = await adapter.comment({ ...input(channel, 'Thread 3/3'), parentReleaseId: second.releaseId });

    const records = await pds.posts(alice);
    const ref = (uri: string) => {
      const found = records.find((record) => record.uri === uri);
      return { uri, cid: found?.cid };
    };
    expect((await recordAt(alice, first.releaseId)).reply).toBeUndefined();
    expect((await recordAt(alice, second.releaseId)).reply).toEqual({
      root: ref(first.releaseId),
      parent: ref(first.releaseId),
    });
    expect((await recordAt(alice, third.releaseId)).reply).toEqual({
      root: ref(first.releaseId),
      parent: ref(second.releaseId),
    });
    expect(third.releaseURL).toBe(`https://bsky.app/profile/alice.test/post/${rkeyOf(third.releaseId)}`);
  });

  it('takes 300 graphemes and refuses 301 with the PDS\'s own message, writing nothing', async () => {
    const channel = await channelOf(alice);
    // User-perceived characters of two code points each (e + combining acute): 300 pass, 301 do not.
    const accepted = await adapter.publish(input(channel, 'e\u0301'.repeat(300)));
    expect((await recordAt(alice, accepted.releaseId)).text).toHaveLength(600);
    const before = (await pds.posts(alice)).length;
    const error = await platformFailure(adapter.publish(input(channel, 'e\u0301'.repeat(301))));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe(
      'Bluesky: Invalid app.bsky.feed.post record: grapheme too big (maximum 300, got 301) at $.record.text',
    );
    expect(await pds.posts(alice)).toHaveLength(before);
  });

  describe('exactly once', () => {
    const createRecord = '/xrpc/com.atproto.repo.createRecord';
    const creates = () => proxy.requests.filter((request) => request.path === createRecord).length;

    it('takes the post the PDS wrote when the answer to createRecord was lost', async () => {
      const channel = await channelOf(alice, proxy.url);
      proxy.failNext(createRecord, { kind: 'lose-response' });
      const sent = creates();
      const part = input(channel, 'Answer lost on the way back');
      const result = await adapter.publish(part);

      expect(creates()).toBe(sent + 1);
      expect(proxy.requests.filter((request) => request.fault === 'lose-response').at(-1)?.upstreamStatus).toBe(200);
      const copies = (await pds.posts(alice)).filter((record) => record.value.text === 'Answer lost on the way back');
      expect(copies.map((record) => record.uri)).toEqual([result.releaseId]);
      expect(rkeyOf(result.releaseId)).toBe(partRecordKey(part.idempotencyKey, part.dueAt ?? new Date()));
    });

    it('finds the post of an attempt that crashed after the PDS accepted it, without writing again', async () => {
      const channel = await channelOf(alice, proxy.url);
      const part = input(channel, 'Worker died after the accept');
      const first = await adapter.publish(part);
      // The worker died before storing the release id: the job runs the part again, checkpoint and all.
      const sent = creates();
      const again = await adapter.publish({ ...part, checkpoint: memoryCheckpoint({ ...part.checkpoint.values }) });

      expect(again).toEqual(first);
      expect(creates()).toBe(sent);
      const copies = (await pds.posts(alice)).filter(
        (record) => record.value.text === 'Worker died after the accept',
      );
      expect(copies).toHaveLength(1);
    });

    it('collides with its own record when the checkpoint was not kept, and takes that record', async () => {
      const channel = await channelOf(alice, proxy.url);
      const part = input(channel, 'Checkpoint lost too');
      const first = await adapter.publish(part);
      const sent = creates();
      const again = await adapter.publish({ ...part, checkpoint: memoryCheckpoint() });

      expect(again).toEqual(first);
      // The second createRecord hit the taken key (the reference PDS answers 500) and was not repeated.
      expect(creates()).toBe(sent + 1);
      expect(proxy.requests.filter((request) => request.path === createRecord).at(-1)?.upstreamStatus).toBe(500);
      const copies = (await pds.posts(alice)).filter((record) => record.value.text === 'Checkpoint lost too');
      expect(copies).toHaveLength(1);
    });

    it('saves the record key in the checkpoint before createRecord', async () => {
      const channel = await channelOf(alice);
      const checkpoint = memoryCheckpoint();
      const part = input(channel, 'Checkpointed key', { checkpoint });
      const result = await adapter.publish(part);
      expect(checkpoint.saves).toEqual([{ rkey: rkeyOf(result.releaseId) }]);
    });

    it('refuses to take over a different post found at its record key', async () => {
      const channel = await channelOf(alice);
      const part = input(channel, 'The first text');
      await adapter.publish(part);
      const error = await platformFailure(
        adapter.publish({ ...part, content: 'Another text', checkpoint: memoryCheckpoint(part.checkpoint.values) }),
      );
      expect(error.kind).toBe('permanent');
      expect(error.message).toContain('already holds another post');
    });
  });

  describe('errors', () => {
    it('asks for a token refresh when the access JWT expired', async () => {
      const channel = await channelOf(alice);
      const error = await platformFailure(
        adapter.publish(input({ ...channel, accessToken: pds.expiredAccessJwt(alice) }, 'Too late')),
      );
      expect(error).toMatchObject({ kind: 'refresh_token', httpStatus: 400, message: 'Bluesky: Token has expired' });
    });

    it('asks the user to reconnect when the PDS cannot verify the token', async () => {
      const channel = await channelOf(alice);
      // The account's own token with another signature.
      const signed = channel.accessToken.split('.').slice(0, 2).join('.');
      const forged = `${signed}.${Buffer.alloc(32).toString('base64url')}`;
      const error = await platformFailure(adapter.publish(input({ ...channel, accessToken: forged }, 'Forged')));
      expect(error).toMatchObject({
        kind: 'disconnected',
        httpStatus: 400,
        message: 'Bluesky: Token could not be verified',
      });
      const unreadable = await platformFailure(
        adapter.publish(input({ ...channel, accessToken: 'not-a-jwt' }, 'Garbled')),
      );
      expect(unreadable).toMatchObject({
        kind: 'disconnected',
        message: 'the stored Bluesky session is unreadable; connect the channel again',
      });
    });

    it('waits for RateLimit-Reset when the PDS throttles', async () => {
      const channel = await channelOf(alice, proxy.url);
      const reset = Math.floor(Date.now() / 1000) + 90;
      proxy.failNext('/xrpc/com.atproto.repo.createRecord', {
        kind: 'answer',
        status: 429,
        body: { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
        headers: {
          'ratelimit-limit': '5000',
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(reset),
          'ratelimit-policy': '5000;w=3600',
        },
      });
      const error = await platformFailure(adapter.publish(input(channel, 'Throttled')));
      expect(error).toMatchObject({ kind: 'retryable', httpStatus: 429, message: 'Bluesky: Rate Limit Exceeded' });
      expect(error.retryAfterMs).toBeGreaterThan(85_000);
      expect(error.retryAfterMs).toBeLessThanOrEqual(90_000);
    });

    it('asks the user to reconnect when the account was taken down', async () => {
      const carol = await pds.createAccount('carol');
      const channel = await channelOf(carol);
      await pds.takedown(carol);
      const error = await platformFailure(adapter.publish(input(channel, 'Taken down')));
      expect(error.kind).toBe('disconnected');
    });
  });

  it('lists the account\'s latest posts with their web addresses', async () => {
    const channel = await channelOf(bob);
    const result = await adapter.publish(input(channel, 'Bob posts once'));
    const recent = await adapter.recentContent(channel);
    expect(recent).toEqual([{ id: result.releaseId, url: result.releaseURL }]);
  });

  describe('tools', () => {
    it('resolves a handle to the DID mentions point at', async () => {
      const channel = await channelOf(alice);
      const resolveHandle = adapter.tools.resolveHandle;
      expect(await resolveHandle?.(channel, { handle: '@bob.test' })).toEqual({ handle: 'bob.test', did: bob.did });
      const unknown = await platformFailure(resolveHandle?.(channel, { handle: 'nobody.test' }) ?? Promise.resolve());
      expect(unknown.message).toBe('Bluesky: Unable to resolve handle');
    });

    it('searches accounts through the PDS, which passes the search on to its AppView', async () => {
      const channel = await channelOf(alice);
      const searchActors = adapter.tools.searchActors;
      const missing = await platformFailure(searchActors?.(channel, {}) ?? Promise.resolve());
      expect(missing.message).toBe('q (the search text) is required');
      // The test PDS has no AppView behind it: its own answer comes back, classified as passing trouble.
      const error = await platformFailure(searchActors?.(channel, { q: 'bob' }) ?? Promise.resolve());
      expect(error).toMatchObject({
        kind: 'retryable',
        httpStatus: 502,
        message: 'Bluesky: Upstream service unreachable',
      });
    });
  });
});
