import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectDeps } from '../../shared/domain/channels/connect-channel.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { startDribbbleSimulator, type DribbbleSimulator } from '../simulators/dribbble/dribbble-simulator.ts';
import { authorizeThroughConsent, oauthConnectDeps } from '../support/oauth-consent.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';
import { postNow, publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { throttleTestSettings } from '../support/throttle-test-settings.ts';
import { expectThrottleSpentNoAttempt, firstSendSeen } from '../support/throttled-publish.ts';
import { synthesizedMedia } from '../support/synthesized-media.ts';

const frontendUrl = 'https://sps.example';

interface Org {
  apiKey: string;
  channelId: string;
}

/**
 * Shots from POST /posts through the queue and the publish worker to the Dribbble simulator, on
 * a player connected through the room's OAuth flow. Dribbble has no idempotency key: these tests
 * count the shots the simulator holds.
 */
describe('publishing to Dribbble through the whole stack', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-dribbble-e2e-'));
  /** An 800x600 image in the format its name says, made by ffmpeg. */
  const image = (name: string): string => {
    const file = path.join(dir, name);
    const source = ['-f', 'lavfi', '-i', 'testsrc=size=800x600'];
    synthesizedMedia([...source, '-frames:v', '1'], file);
    return file;
  };
  const files = { png: '', webp: '' };
  let sim: DribbbleSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let deps: ConnectDeps;
  let organizations = 0;

  beforeAll(async () => {
    files.png = image('shot.png');
    files.webp = image('shot.webp');
    sim = await startDribbbleSimulator();
    sim.addUser({
      id: 1, name: 'Dan Cederholm', login: 'simplebits', can_upload_shot: true,
      avatar_url: 'https://cdn.dribbble.com/users/1/avatars/normal/dc.jpg',
    });
    sim.authority.consentingUser = '1';
    ctx = await createTestContext({
      ...oauthSimulatorSettings('dribbble', sim),
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
    rmSync(dir, { recursive: true, force: true });
  });

  /** A new organization whose user connected the player through Dribbble's consent and the callback. */
  async function connected(): Promise<Org> {
    organizations += 1;
    const org = await createOrganization(ctx.db, ctx.secrets, { name: `Dribbble org ${String(organizations)}` });
    const outcome = await authorizeThroughConsent(deps, org.organizationId, 'dribbble');
    if (outcome.kind !== 'saved') throw new Error('the player was not saved as a channel');
    return { apiKey: org.apiKey, channelId: outcome.id };
  }

  const shotsTitled = (title: string) => sim.shots.items.filter((shot) => shot.title === title);

  it('uploads a shot of an uploaded 800x600 PNG with its title, text and tags', async () => {
    const org = await connected();
    const png = await uploadFile(stack.baseUrl, org.apiKey, files.png);
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'A test pattern', image: [png] }], {
      title: 'Test pattern', tags: ['pattern', 'test'],
    });
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state, part?.error ?? '').toBe('PUBLISHED');
    const [shot] = shotsTitled('Test pattern');
    expect(shot).toMatchObject({ description: 'A test pattern', tags: ['pattern', 'test'], image: { width: 800 } });
    expect(shot?.image.bytes.equals(readFileSync(files.png))).toBe(true);
    expect(part?.releaseId).toBe(String(shot?.id));
    expect(part?.releaseURL).toBe(`https://dribbble.com/shots/${String(shot?.id)}`);
  });

  it('refuses at POST /posts a WebP image, which Dribbble does not take, and sends nothing', async () => {
    const org = await connected();
    const webp = await uploadFile(stack.baseUrl, org.apiKey, files.webp);
    const before = sim.received.length;
    const response = await postNow(stack.baseUrl, org, [{ content: 'x', image: [webp] }], { title: 'WebP' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: 'validation_failed',
      details: [{
        message: 'Dribbble channel "Dan Cederholm": the image is image/webp; '
          + 'Dribbble takes only GIF, JPG or PNG images',
      }],
    });
    expect(sim.received.length).toBe(before);
  });

  it('uploads once when Dribbble made the shot and the answer was lost: the retry finds it', async () => {
    const org = await connected();
    const png = await uploadFile(stack.baseUrl, org.apiKey, files.png);
    const lost = sim.lostResponses;
    sim.failNext('POST /v2/shots', 'lose');
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Lost', image: [png] }], { title: 'Lost answer' });
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state, part?.error ?? '').toBe('PUBLISHED');
    expect(sim.lostResponses).toBe(lost + 1);
    const made = shotsTitled('Lost answer');
    expect(made).toHaveLength(1);
    expect(part?.releaseId).toBe(String(made[0]?.id));
    const uploads = sim.requestsTo('POST /v2/shots').filter((request) => request.text.includes('Lost answer'));
    expect(uploads).toHaveLength(1);
  });

  it('waits for Dribbble\'s X-RateLimit-Reset without spending an attempt', async () => {
    const org = await connected();
    const png = await uploadFile(stack.baseUrl, org.apiKey, files.png);
    sim.failNext('POST /v2/shots', sim.rateLimited(1));
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Later', image: [png] }], { title: 'Throttled' });
    const sent = () => sim.requestsTo('POST /v2/shots').filter((request) => request.text.includes('Throttled'));
    const firstTry = await firstSendSeen(sent);
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state, part?.error ?? '').toBe('PUBLISHED');
    // Backoff would have retried after 20 ms; the window reopens one to two seconds later.
    expect(Date.now() - firstTry).toBeGreaterThanOrEqual(900);
    expect(sent()).toHaveLength(2);
    expect(shotsTitled('Throttled')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails the post with Dribbble\'s words when it refuses the shot', async () => {
    const org = await connected();
    const png = await uploadFile(stack.baseUrl, org.apiKey, files.png);
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Team', image: [png] }], {
      title: 'Not my team', team_id: 99,
    });
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('ERROR');
    expect(part?.error).toBe('Validation failed. team_id is not a team you belong to');
    expect(shotsTitled('Not my team')).toHaveLength(0);
  });

  // Last: revoking voids every token the simulator issued.
  it('flags the channel once Dribbble refuses the revoked token', async () => {
    const org = await connected();
    const png = await uploadFile(stack.baseUrl, org.apiKey, files.png);
    sim.authority.revokeAll();
    const postId = await publishNow(stack.baseUrl, org, [{ content: 'Revoked', image: [png] }], { title: 'Revoked' });
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('ERROR');
    expect(part?.error).toBe('Bad credentials.');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(shotsTitled('Revoked')).toHaveLength(0);
  });
});
