import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { publishJobId } from '../../shared/queue/queues.ts';
import { graphError } from '../simulators/facebook/meta-graph-simulation.ts';
import { startThreadsSimulator, type ThreadsSimulator } from '../simulators/threads/threads-simulator.ts';
import { api } from '../support/fixtures.ts';
import { freePort } from '../support/free-port.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { makeTestMedia } from '../support/test-media.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { oauthSimulatorSettings } from '../support/oauth-simulator-settings.ts';

const files = makeTestMedia();
const ada = '25000000000000001';
const grace = '25000000000000002';
const v1 = '/api/public/v1';

/**
 * Threads from POST /posts through the queue and the publish worker to the Threads simulator, on
 * channels connected through Threads' consent page and the api's callback. The simulator pulls
 * the media from the api's own /uploads, as Threads pulls them from UPLOADS_PUBLIC_URL. Exactly
 * once rests on the container saved in the part's checkpoint: these tests count what the
 * simulator holds and how often threads_publish was called.
 */
describe('publishing to Threads through the whole stack', () => {
  let threads: ThreadsSimulator;
  let ctx: TestContext;
  let stack: RunningStack;
  let organizations = 0;

  beforeAll(async () => {
    threads = await startThreadsSimulator();
    const picture = 'https://cdn.threads.example/p.jpg';
    threads.addUser({ id: ada, username: 'ada', name: 'Ada on Threads', profilePictureUrl: picture, biography: '' });
    threads.addUser({ id: grace, username: 'grace', name: 'Grace', profilePictureUrl: picture, biography: '' });
    // The api listens where FRONTEND_URL (OAuth callbacks) and UPLOADS_PUBLIC_URL (media) say.
    const port = await freePort();
    const origin = `http://127.0.0.1:${String(port)}`;
    ctx = await createTestContext({
      FRONTEND_URL: origin,
      UPLOADS_PUBLIC_URL: `${origin}/uploads`,
      ...oauthSimulatorSettings('threads', threads),
      PUBLISH_ATTEMPTS: '5',
      PUBLISH_BACKOFF_MS: '20',
      // A lost answer is noticed when the request times out.
      PLATFORM_TIMEOUT_MS: '1500',
    });
    stack = await startStack(ctx, { port });
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await threads.close();
    rmSync(files.dir, { recursive: true, force: true });
  });

  /** A new organization connecting `user`'s Threads profile: GET /social/threads, consent, callback. */
  async function organization(user = ada): Promise<{ apiKey: string; channelId: string }> {
    organizations += 1;
    const org = await createOrganization(ctx.db, ctx.secrets, { name: `Org ${String(organizations)}` });
    const started = await api(stack.baseUrl, org.apiKey, `${v1}/social/threads`);
    expect(started.status).toBe(200);
    threads.authority.consentingUser = user;
    const consent = await fetch((started.body as { url: string }).url, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location') ?? '');
    const page = await fetch(back, { redirect: 'manual' });
    const id = /channel <code>([0-9a-f]{24})<\/code>/.exec(await page.text())?.[1];
    expect(page.status).toBe(200);
    return { apiKey: org.apiKey, channelId: id ?? '' };
  }

  async function upload(apiKey: string, path: string, name: string): Promise<{ id: string; path: string }> {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(path)]), name);
    const headers = { Authorization: apiKey };
    const response = await fetch(`${stack.baseUrl}${v1}/upload`, { method: 'POST', body: form, headers });
    expect(response.status).toBe(201);
    const uploaded = (await response.json()) as { id: string; path: string };
    // A post names a library file by these two; the upload's other fields are not the post's to send back.
    return { id: uploaded.id, path: uploaded.path };
  }

  const made = (text: string) => threads.publishing.threads.filter((thread) => thread.text === text);
  const publishCalls = (containerId: string) => threads.received.filter((request) =>
    request.path === '/v1.0/me/threads_publish'
    && new URLSearchParams(request.text).get('creation_id') === containerId);

  it('publishes a 3-part thread: an image on part 1, a video on part 2, replies chained', async () => {
    const org = await organization();
    const image = await upload(org.apiKey, files.png, 'engine.png');
    const video = await upload(org.apiKey, files.mp4, 'engine.mp4');
    const response = await api(stack.baseUrl, org.apiKey, `${v1}/posts`, {
      method: 'POST',
      body: {
        type: 'now',
        posts: [{
          integration: { id: org.channelId },
          settings: { reply_control: 'accounts_you_follow', topic_tag: 'Engines' },
          value: [
            { content: 'Engines 1/3', image: [{ ...image, alt: 'The engine' }] },
            { content: 'Engines 2/3', image: [video] },
            { content: 'Engines 3/3' },
          ],
        }],
      },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const parts = await settledParts(ctx.db, (response.body as { postId: string }[])[0]?.postId ?? '');
    expect(parts.map((part) => [part.state, part.error])).toEqual(Array.from({ length: 3 }, () => ['PUBLISHED', null]));

    const [first, second, third] = ['Engines 1/3', 'Engines 2/3', 'Engines 3/3'].map((text) => made(text));
    expect(first).toEqual([expect.objectContaining({
      mediaType: 'IMAGE',
      replyToId: null,
      replyControl: 'accounts_you_follow',
      topicTag: 'Engines',
      altTexts: ['The engine'],
    })]);
    expect(second).toEqual([expect.objectContaining({ mediaType: 'VIDEO', replyToId: first?.[0]?.id })]);
    expect(third).toEqual([expect.objectContaining({ mediaType: 'TEXT_POST', replyToId: second?.[0]?.id })]);
    // Threads fetched both files from the api's public uploads address.
    expect(first?.[0]?.mediaUrls).toEqual([image.path]);
    expect(second?.[0]?.mediaUrls).toEqual([video.path]);
    expect(image.path.startsWith(`${ctx.config.UPLOADS_PUBLIC_URL}/`)).toBe(true);
    expect(parts.map((part) => part.releaseId)).toEqual([first?.[0]?.id, second?.[0]?.id, third?.[0]?.id]);
    expect(parts[0]?.releaseURL).toBe(first?.[0]?.permalink);
  });

  it('publishes a part once when threads_publish went through and its answer was lost', async () => {
    const org = await organization();
    const lost = threads.publishing.lostResponses;
    // Part 1 goes through; part 2 is published but its answer never arrives.
    threads.publishing.failNext('threads_publish', 'pass', { loseResponse: true });
    const postId = await publishNow(stack.baseUrl, org, ['Lost answer 1/2', 'Lost answer 2/2']);
    const parts = await settledParts(ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(threads.publishing.lostResponses).toBe(lost + 1);

    const [root] = made('Lost answer 1/2');
    const replies = made('Lost answer 2/2');
    expect(replies).toHaveLength(1);
    expect(replies[0]?.replyToId).toBe(root?.id);
    expect(publishCalls(replies[0]?.containerId ?? '')).toHaveLength(1);
    expect(parts.map((part) => part.releaseId)).toEqual([root?.id, replies[0]?.id]);
    expect(parts[1]?.checkpoint).toMatchObject({ container: replies[0]?.containerId });
  });

  it('waits for the reset in Threads\' usage header without spending an attempt', async () => {
    const org = await organization();
    const usage = JSON.stringify({ [ada]: [{ type: 'threads', call_count: 100, estimated_time_to_regain_access: 1 }] });
    const throttled = graphError('(#4) Application request limit reached', 4);
    threads.publishing.failNext('threads', { ...throttled, headers: { 'x-business-use-case-usage': usage } });
    const throttledAt = Date.now();
    const postId = await publishNow(stack.baseUrl, org, ['After the reset']);

    const job = await waitFor(async () => {
      const candidate = await stack.publishQueue.getJob(publishJobId(postId));
      const state = await candidate?.getState();
      return state === 'delayed' && (candidate?.data as { rateLimitDelays?: number }).rateLimitDelays === 1
        ? candidate
        : undefined;
    }, { what: 'the job to wait for the reset' });
    // One minute, the header's estimate; the attempt was not spent.
    const waitMs = job.timestamp + job.delay - throttledAt;
    expect(waitMs).toBeGreaterThan(55_000);
    expect(waitMs).toBeLessThan(65_000);
    expect(job.attemptsMade).toBe(0);
    expect(made('After the reset')).toHaveLength(0);

    await job.promote();
    const [root] = await settledParts(ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    expect(made('After the reset')).toHaveLength(1);
    const finished = await finishedPublishJob(stack.publishQueue, postId);
    expect(finished).toMatchObject({ state: 'completed', attemptsMade: 1 });
  });

  it('fails the post and flags the channel when Threads refuses the token (190)', async () => {
    const org = await organization(grace);
    threads.revokeUser(grace);
    const postId = await publishNow(stack.baseUrl, org, ['Refused token']);

    const [root] = await settledParts(ctx.db, postId);

    expect(root?.state).toBe('ERROR');
    expect(root?.error).toBe('Error validating access token: The user has not authorized application.');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(made('Refused token')).toHaveLength(0);
  });

  it('refuses at POST /posts a GIF, which Threads does not take, and queues nothing', async () => {
    const org = await organization();
    const gif = await upload(org.apiKey, files.gif, 'moving.gif');

    const response = await api(stack.baseUrl, org.apiKey, `${v1}/posts`, {
      method: 'POST',
      body: {
        type: 'now',
        posts: [{ integration: { id: org.channelId }, value: [{ content: 'A GIF', image: [gif] }] }],
      },
    });

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: 'validation_failed',
      details: [{
        message: expect.stringContaining('media 1 is image/gif; Threads takes JPEG and PNG images') as string,
      }],
    });
    expect(await ctx.db.posts.countDocuments({ channelId: org.channelId })).toBe(0);
  });
});
