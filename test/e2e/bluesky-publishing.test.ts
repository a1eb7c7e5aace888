import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishJobId } from '../../shared/queue/queues.ts';
import {
  startTestBlueskyPds,
  type PdsAccount,
  type PostRecord,
  type TestBlueskyPds,
} from '../support/bluesky-pds.ts';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { api } from '../support/fixtures.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { makeSmallMedia, type SmallMedia } from '../support/small-media.ts';
import { organizationWithCredentialChannel } from '../support/credential-channel.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

const createRecord = '/xrpc/com.atproto.repo.createRecord';

/**
 * Bluesky through the whole stack (POST /posts, the queue, the publish worker) to the reference
 * PDS, on channels connected with the credentials form's values. Exactly once rests on the
 * record key SPS chooses per part: these tests count the records the PDS holds.
 */
describe('publishing to Bluesky through the whole stack', () => {
  let pds: TestBlueskyPds;
  let proxy: FaultProxy;
  let ctx: TestContext;
  let stack: RunningStack;
  let media: SmallMedia;
  let accounts = 0;

  beforeAll(async () => {
    pds = await startTestBlueskyPds();
    process.stderr.write(`[bluesky e2e] PDS started in ${String(pds.startedInMs)} ms\n`);
    proxy = await startFaultProxy(pds.url);
    media = makeSmallMedia();
    ctx = await createTestContext({
      // One attempt: a rate-limit delay that spent it would fail the post.
      PUBLISH_ATTEMPTS: '1',
      PLATFORM_TIMEOUT_MS: '5000',
    });
    stack = await startStack(ctx);
  }, 60_000);

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await proxy.close();
    await pds.close();
    media.remove();
  });

  /** A new account, connected as a user would: handle, app password and the PDS's address. */
  async function organization(
    pdsUrl: string = pds.url,
  ): Promise<{ apiKey: string; channelId: string; account: PdsAccount }> {
    accounts += 1;
    const account = await pds.createAccount(`user${String(accounts)}`);
    const values = { identifier: account.handle, appPassword: account.appPassword, pdsUrl };
    const org = await organizationWithCredentialChannel(ctx, 'bluesky', values, `Bluesky org ${String(accounts)}`);
    return { apiKey: org.apiKey, channelId: org.channelId, account };
  }

  async function upload(apiKey: string, file: string, name: string): Promise<{ id: string; path: string }> {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(file)]), name);
    const response = await fetch(`${stack.baseUrl}/api/public/v1/upload`, {
      method: 'POST',
      body: form,
      headers: { Authorization: apiKey },
    });
    expect(response.status).toBe(201);
    const { id, path } = (await response.json()) as { id: string; path: string };
    return { id, path };
  }

  const byText = (records: PostRecord[], prefix: string) =>
    records
      .filter((record) => record.value.text.startsWith(prefix))
      .sort((a, b) => a.value.text.localeCompare(b.value.text));

  it('publishes a thread with an image and a video as a post and replies rooted in it', async () => {
    const org = await organization();
    const image = await upload(org.apiKey, media.png, 'card.png');
    const video = await upload(org.apiKey, media.mp4, 'clip.mp4');
    const response = await api(stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'now',
        posts: [
          {
            integration: { id: org.channelId },
            settings: { langs: ['en'] },
            value: [
              { content: 'E2E thread 1/3 #sps', image: [{ ...image, alt: 'A test card' }] },
              { content: 'E2E thread 2/3' },
              { content: 'E2E thread 3/3', image: [{ ...video, alt: 'A test clip' }] },
            ],
          },
        ],
      },
    });
    expect(response.status).toBe(201);
    const postId = (response.body as { postId: string }[])[0]?.postId ?? '';
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);

    const records = await pds.posts(org.account);
    expect(records).toHaveLength(3);
    const [first, second, third] = byText(records, 'E2E thread');
    expect(parts.map((part) => part.releaseId)).toEqual([first?.uri, second?.uri, third?.uri]);
    const rootRef = { uri: first?.uri, cid: first?.cid };
    expect(first?.value).toMatchObject({
      langs: ['en'],
      facets: [
        { index: { byteStart: 15, byteEnd: 19 }, features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'sps' }] },
      ],
      embed: {
        $type: 'app.bsky.embed.images',
        images: [{ alt: 'A test card', aspectRatio: { width: 64, height: 48 } }],
      },
    });
    expect(first?.value.reply).toBeUndefined();
    expect(second?.value.reply).toEqual({ root: rootRef, parent: rootRef });
    expect(third?.value.reply).toEqual({ root: rootRef, parent: { uri: second?.uri, cid: second?.cid } });
    expect(third?.value.embed).toMatchObject({
      $type: 'app.bsky.embed.video',
      alt: 'A test clip',
      video: { mimeType: 'video/mp4' },
    });
    const rkey = first?.uri.split('/').at(-1) ?? '-';
    expect(parts[0]?.releaseURL).toBe(`https://bsky.app/profile/${org.account.handle}/post/${rkey}`);
  });

  it('writes each part once when the PDS stored a part but its answer was lost', async () => {
    const org = await organization(proxy.url);
    // Part 1 goes through; part 2 is written by the PDS but its answer never arrives.
    proxy.failNext(createRecord, { kind: 'pass' });
    proxy.failNext(createRecord, { kind: 'lose-response' });
    proxy.requests.length = 0;
    const postId = await publishNow(stack.baseUrl, org, ['Lost answer 1/2', 'Lost answer 2/2']);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);

    const records = await pds.posts(org.account);
    expect(byText(records, 'Lost answer').map((record) => record.value.text)).toEqual([
      'Lost answer 1/2',
      'Lost answer 2/2',
    ]);
    expect(records).toHaveLength(2);
    expect(parts.map((part) => part.releaseId)).toEqual(byText(records, 'Lost answer').map((record) => record.uri));
    const lost = proxy.requests.filter((request) => request.fault === 'lose-response');
    expect(lost).toHaveLength(1);
    expect(lost[0]?.upstreamStatus).toBe(200);
  });

  it('waits for the PDS\'s rate-limit reset without spending the only attempt', async () => {
    const org = await organization(proxy.url);
    const resetAt = Math.ceil(Date.now() / 1000) + 2;
    proxy.failNext(createRecord, {
      kind: 'answer',
      status: 429,
      body: { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
      headers: {
        'ratelimit-limit': '5000',
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(resetAt),
        'ratelimit-policy': '5000;w=3600',
      },
    });
    const postId = await publishNow(stack.baseUrl, org, ['Throttled once']);
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('PUBLISHED');
    expect(part?.publishedAt?.getTime()).toBeGreaterThanOrEqual(resetAt * 1000);
    const job = await stack.publishQueue.getJob(publishJobId(postId));
    expect(job?.data).toMatchObject({ rateLimitDelays: 1 });
    expect(await pds.posts(org.account)).toHaveLength(1);
  });

  it('flags the channel when its app password was revoked and the session can no longer be renewed', async () => {
    const org = await organization();
    await pds.revokeAppPassword(org.account);
    // The access JWT stays valid for its two hours; once they are over, the renewal is refused.
    await ctx.db.channels.updateOne(
      { _id: org.channelId },
      { $set: { tokenExpiresAt: new Date(Date.now() - 60_000) } },
    );
    const postId = await publishNow(stack.baseUrl, org, ['After the revocation']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Bluesky: Token has been revoked');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(await pds.posts(org.account)).toHaveLength(0);
  });
});
