import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { neynarIdem } from '../../shared/platforms/warpcast/adapter.ts';
import { startNeynarSimulator, type NeynarSimulator } from '../simulators/warpcast/neynar-simulator.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { organizationWithCredentialChannel } from '../support/credential-channel.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia } from '../support/small-media.ts';

const apiKey = 'NEYNAR-APP-KEY-1';
const media = makeSmallMedia();
const fid = 3621;

/**
 * A Farcaster thread from POST /posts through the queue and the publish worker to the Neynar
 * simulator, on a channel connected the way the dashboard's form connects it. Exactly once rests
 * on Neynar's `idem`: these tests count the casts the simulator holds.
 */
describe('publishing to Warpcast through the whole stack', () => {
  let neynar: NeynarSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let signers = 0;

  beforeAll(async () => {
    neynar = await startNeynarSimulator();
    neynar.addApiKey(apiKey);
    neynar.addUser({ fid, username: 'alice', displayName: 'Alice' });
    neynar.addChannel({ id: 'neynar', name: 'Neynar', url: 'chain://eip155:1/erc721:0xneynar', followers: [fid] });
    ctx = await createTestContext({
      WARPCAST_API_URL: neynar.url,
      PUBLISH_ATTEMPTS: '5',
      PUBLISH_BACKOFF_MS: '20',
      // A lost answer is noticed when the request times out.
      PLATFORM_TIMEOUT_MS: '1000',
    });
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await neynar.close();
    media.remove();
  });

  /** An organization whose Warpcast channel was connected with an API key and a signer of its own. */
  async function organization(): Promise<{ apiKey: string; channelId: string }> {
    signers += 1;
    const signerUuid = `19d0c5fd-9b33-4a48-a0e2-${String(signers).padStart(12, '0')}`;
    neynar.addSigner({ uuid: signerUuid, apiKey, status: 'approved', fid });
    return organizationWithCredentialChannel(ctx, 'warpcast', { apiKey, signerUuid }, `Org ${String(signers)}`);
  }

  it('publishes a thread as a cast in the channel and replies chained to it', async () => {
    const org = await organization();
    const texts = ['E2E thread 1/3', 'E2E thread 2/3', 'E2E thread 3/3'];
    const postId = await publishNow(stack.baseUrl, org, texts, { channel_id: 'neynar' });
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);

    const casts = neynar.casts.filter((cast) => cast.text.startsWith('E2E thread'));
    expect(casts.map((cast) => cast.text)).toEqual(['E2E thread 1/3', 'E2E thread 2/3', 'E2E thread 3/3']);
    expect(casts[0]).toMatchObject({ parentUrl: 'chain://eip155:1/erc721:0xneynar', parentHash: null });
    expect(casts[1]?.parentHash).toBe(casts[0]?.hash);
    expect(casts[2]?.parentHash).toBe(casts[1]?.hash);
    expect(parts.map((part) => part.releaseId)).toEqual(casts.map((cast) => cast.hash));
    expect(parts[0]?.releaseURL).toBe(`https://farcaster.xyz/alice/${casts[0]?.hash.slice(0, 10) ?? ''}`);
    const idems = parts.map((part) => neynarIdem(`sps-post-${part._id.toString()}`));
    expect(casts.map((cast) => cast.idem)).toEqual(idems);

    const link = parts[0]?.releaseURL ?? '-';
    // The notification is written after the parts are: wait for it rather than read once.
    const notification = await waitFor(
      async () => (await ctx.db.notifications.findOne({ link }).lean()) ?? undefined,
      { what: 'the success notification' },
    );
    expect(notification.content).toContain('published on Warpcast');
  });

  it('embeds a thread part\'s image and video by the URLs the api serves them at', async () => {
    const org = await organization();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const video = await uploadFile(stack.baseUrl, org.apiKey, media.mp4);
    const postId = await publishNow(stack.baseUrl, org, [
      'Embeds 1/2',
      { content: 'Embeds 2/2', image: [image, video] },
    ]);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    const cast = neynar.casts.find((candidate) => candidate.text === 'Embeds 2/2');
    expect(cast?.embeds).toEqual([{ url: image.path }, { url: video.path }]);
    // The embedded URLs are where the api serves the files: what readers' apps will fetch.
    for (const embed of cast?.embeds ?? []) {
      const served = await fetch(`${stack.baseUrl}${new URL(embed.url).pathname}`);
      expect(served.status).toBe(200);
    }
  });

  it('casts once when Neynar accepted a part and its answer was lost: the retry gets the same cast', async () => {
    const org = await organization();
    const lostBefore = neynar.lostResponses;
    // Part 1 goes through; part 2 is cast but its answer never arrives.
    neynar.failNext('pass', { loseResponse: true });
    const postId = await publishNow(stack.baseUrl, org, ['Lost answer 1/2', 'Lost answer 2/2']);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(neynar.lostResponses).toBe(lostBefore + 1);

    const casts = neynar.casts.filter((cast) => cast.text.startsWith('Lost answer'));
    expect(casts.map((cast) => cast.text)).toEqual(['Lost answer 1/2', 'Lost answer 2/2']);
    expect(casts[1]?.parentHash).toBe(casts[0]?.hash);
    const secondIdem = neynarIdem(`sps-post-${parts[1]?._id.toString() ?? ''}`);
    expect(neynar.idemsFor('Lost answer 1/2')).toHaveLength(1);
    expect(neynar.idemsFor('Lost answer 2/2')).toEqual([secondIdem, secondIdem]);
    expect(parts.map((part) => part.releaseId)).toEqual(casts.map((cast) => cast.hash));
  });

  it('fails the post and flags the channel when Neynar refuses the signer', async () => {
    const org = await organization();
    neynar.failNext({
      status: 403,
      body: { code: 'SignerNotApproved', message: 'Signer status is revoked.', property: 'signer_uuid', status: 403 },
    });
    const postId = await publishNow(stack.baseUrl, org, ['Refused signer']);
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Neynar: Signer status is revoked. (signer_uuid)');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(neynar.casts.filter((cast) => cast.text === 'Refused signer')).toHaveLength(0);
  });
});
