import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishPick, type ConnectDeps } from '../../shared/domain/channels/connect-channel.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { startPinterestSimulator, type PinterestSimulator } from '../simulators/pinterest/pinterest-simulator.ts';
import { authorizeThroughConsent, oauthConnectDeps } from '../support/oauth-consent.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { postNow, publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia } from '../support/small-media.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { throttleTestSettings } from '../support/throttle-test-settings.ts';
import { expectThrottleSpentNoAttempt, firstSendSeen } from '../support/throttled-publish.ts';
import { synthesizedMedia } from '../support/synthesized-media.ts';

const frontendUrl = 'https://sps.example';
const maker = '549755885175';
const recipes = '549755885175001';

interface Org {
  apiKey: string;
  channelId: string;
}

/**
 * Pins from POST /posts through the queue and the publish worker to the Pinterest simulator, on
 * a board connected through the room's OAuth flow and board picker. Pinterest has no idempotency
 * key: these tests count the pins the simulator holds.
 */
describe('publishing to Pinterest through the whole stack', () => {
  const media = makeSmallMedia();
  // Pinterest takes videos of 4 seconds or more; the shared test clip lasts one.
  const video = path.join(path.dirname(media.mp4), 'pin.mp4');
  const gif = path.join(path.dirname(media.mp4), 'pin.gif');
  let sim: PinterestSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let deps: ConnectDeps;
  let organizations = 0;

  beforeAll(async () => {
    synthesizedMedia([
      '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-t', '4', '-c:v', 'libx264', '-pix_fmt', 'yuv420p',
    ], video);
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', media.png, gif], { stdio: ['ignore', 'ignore', 'inherit'] });
    sim = await startPinterestSimulator();
    sim.addUser({
      id: maker, username: 'maker', profile_image: 'https://i.pinimg.com/maker.jpg', account_type: 'BUSINESS',
      boards: [{ id: recipes, name: 'Recipes', privacy: 'PUBLIC' }],
    });
    sim.authority.consentingUser = maker;
    ctx = await createTestContext({
      ...oauthSimulatorSettings('pinterest', sim),
      FRONTEND_URL: frontendUrl,
      ...throttleTestSettings,
    });
    stack = await startStack(ctx);
    deps = oauthConnectDeps(ctx, stack, frontendUrl);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await sim.close();
    media.remove();
  });

  /** A new organization whose user connected the Recipes board: consent, callback, board picker. */
  async function connected(): Promise<Org> {
    organizations += 1;
    const org = await createOrganization(ctx.db, ctx.secrets, { name: `Pinterest org ${String(organizations)}` });
    const { organizationId } = org;
    let outcome = await authorizeThroughConsent(deps, organizationId, 'pinterest');
    if (outcome.kind === 'pick') {
      outcome = await finishPick(deps, { provider: 'pinterest', key: outcome.key, organizationId }, recipes);
    }
    if (outcome.kind !== 'saved') throw new Error('the board was not saved as a channel');
    return { apiKey: org.apiKey, channelId: outcome.id };
  }

  const pinsWith = (description: string) => sim.pins.items.filter((pin) => pin.description === description);

  it('pins an uploaded image, then a video with its cover, to the picked board', async () => {
    const org = await connected();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const settings = { title: 'Test card', link: 'https://example.com/card' };
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Pinterest e2e image', image: [image] }],
      settings);
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state, part?.error ?? '').toBe('PUBLISHED');
    const [pin] = pinsWith('Pinterest e2e image');
    expect(pin).toMatchObject({ boardId: recipes, title: 'Test card', link: 'https://example.com/card' });
    expect(pin?.images[0]?.bytes.equals(readFileSync(media.png))).toBe(true);
    expect(part?.releaseId).toBe(pin?.id);
    expect(part?.releaseURL).toBe(`https://www.pinterest.com/pin/${pin?.id ?? ''}/`);

    const clip = await uploadFile(stack.baseUrl, org.apiKey, video);
    const videoPostId = await publishNow(stack.baseUrl, org, [{ content: 'Pinterest e2e video', image: [clip] }], {
      cover_image_key_frame_time: 1,
    });
    const [videoPart] = await settledParts(ctx.db, videoPostId);
    expect(videoPart?.state, videoPart?.error ?? '').toBe('PUBLISHED');
    const [videoPin] = pinsWith('Pinterest e2e video');
    const registered = sim.media.items.get(videoPin?.video?.mediaId ?? '');
    expect(registered?.bytes?.equals(readFileSync(video))).toBe(true);
    expect(videoPin?.video?.cover).toEqual({ cover_image_key_frame_time: 1 });
    expect(videoPart?.checkpoint).toMatchObject({ videoMediaId: registered?.id, videoUploaded: '1' });
  });

  it('refuses at POST /posts a GIF, which pins do not take, and sends nothing', async () => {
    const org = await connected();
    const image = await uploadFile(stack.baseUrl, org.apiKey, gif);
    const before = sim.received.length;
    const response = await postNow(stack.baseUrl, org, [{ content: 'x', image: [image] }]);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('Pinterest takes PNG or JPEG images only, not image/gif');
    expect(sim.received.length).toBe(before);
  });

  it('pins once when Pinterest made the pin and the answer was lost: the retry finds it on the board', async () => {
    const org = await connected();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const lost = sim.lostResponses;
    sim.failNext('POST /v5/pins', 'lose');
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Pinterest lost answer', image: [image] }]);
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state, part?.error ?? '').toBe('PUBLISHED');
    expect(sim.lostResponses).toBe(lost + 1);
    const made = pinsWith('Pinterest lost answer');
    expect(made).toHaveLength(1);
    expect(part?.releaseId).toBe(made[0]?.id);
    const lookups = sim.requestsTo('GET /v5/boards/:id/pins').filter((request) => request.path.includes(recipes));
    expect(lookups.length).toBeGreaterThan(0);
    // One create: the retry found the pin instead of sending it again.
    const creates = sim.requestsTo('POST /v5/pins')
      .filter((request) => request.text.includes('Pinterest lost answer'));
    expect(creates).toHaveLength(1);
  });

  it('waits for Pinterest\'s rate-limit reset without spending an attempt', async () => {
    const org = await connected();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    sim.failNext('POST /v5/pins', sim.rateLimited(1));
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Pinterest throttled', image: [image] }]);
    const sent = () => sim.requestsTo('POST /v5/pins')
      .filter((request) => request.text.includes('Pinterest throttled'));
    const firstTry = await firstSendSeen(sent);
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state, part?.error ?? '').toBe('PUBLISHED');
    // Backoff would have retried after 20 ms; the window reopens a second later.
    expect(Date.now() - firstTry).toBeGreaterThanOrEqual(900);
    expect(sent()).toHaveLength(2);
    expect(pinsWith('Pinterest throttled')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails the post with Pinterest\'s message when it refuses the pin', async () => {
    const org = await connected();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Pinterest refused', image: [image] }], {
      board_id: '1234',
    });
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('ERROR');
    expect(part?.error).toBe('Board not found.');
    expect(pinsWith('Pinterest refused')).toHaveLength(0);
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).not.toBe(true);
  });

  // Last: revoking voids every token the simulator issued.
  it('flags the board once Pinterest refuses the token and its refresh', async () => {
    const org = await connected();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const refreshes = sim.authority.grants.refresh_token;
    sim.authority.revokeAll();
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Pinterest revoked', image: [image] }]);
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('ERROR');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(pinsWith('Pinterest revoked')).toHaveLength(0);
    // The refresh was tried (and refused) before the channel was flagged.
    expect(sim.authority.grants.refresh_token).toBe(refreshes);
    const tried = sim.received.filter((request) => request.path === '/v5/oauth/token'
      && new URLSearchParams(request.text).get('grant_type') === 'refresh_token');
    expect(tried.length).toBeGreaterThan(0);
  });
});
