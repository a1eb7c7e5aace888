import { afterAll, describe, expect, it } from 'vitest';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { publishNow, settledParts } from '../../../test/support/publish-now.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';
import { waitFor } from '../../../test/support/stack.ts';
import { WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import { eventDataSchemas } from '../events/schema.ts';

const prefix = '/api/public/v1';

interface Attempt {
  at: string;
  category: string;
  message: string;
  httpStatus: number | null;
}
interface PostAnswer {
  state: string;
  error: string | null;
  errorCategory: string | null;
  value: { state: string; error: string | null; errorCategory: string | null; attempts: Attempt[] }[];
}
interface Delivered {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * Why a post failed, everywhere a client looks: GET /posts/:id, the post.failed and post.retrying
 * webhooks and the notification, through the api, the publish worker and the Mastodon simulator
 * refusing or throttling status creation.
 */
describe('failure categories and attempts', () => {
  const world = useSimulatedStack();
  const receivers: WebhookReceiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  /** An organization with a Mastodon channel and an endpoint subscribed to `events`. */
  async function subscribedOrganization(events: string[]) {
    const token = world.simulator.addAccount(`fail${Math.random().toString(36).slice(2, 8)}`);
    const org = await organizationWithMastodon(world.ctx, world.simulator.origin, token);
    const receiver = await new WebhookReceiver().start();
    receivers.push(receiver);
    const created = await api(world.stack.baseUrl, org.apiKey, `${prefix}/webhooks`, {
      method: 'POST', body: { url: receiver.url, events },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    receiver.secret = (created.body as { secret: string }).secret;
    return { org, receiver };
  }

  const bodies = (receiver: WebhookReceiver) =>
    receiver.received.map((request) => JSON.parse(request.body) as Delivered);

  function delivered(receiver: WebhookReceiver, type: string, postId: string): Promise<Delivered> {
    return waitFor(
      () => bodies(receiver).find((body) => body.type === type && body.data.postId === postId),
      { what: `${type} for ${postId}`, timeoutMs: 20_000 },
    );
  }

  it('shows a permanent refusal\'s category and attempt in GET /posts/:id, post.failed, the notification', async () => {
    const { org, receiver } = await subscribedOrganization(['post.failed']);
    world.simulator.failNext({ status: 422, body: { error: 'Validation failed: Text character limit exceeded' } });
    const postId = await publishNow(world.stack.baseUrl, org, ['Refused for good']);
    await settledParts(world.ctx.db, postId);

    const answer = await api(world.stack.baseUrl, org.apiKey, `${prefix}/posts/${postId}`);
    expect(answer.status).toBe(200);
    const post = answer.body as PostAnswer;
    expect(post).toMatchObject({ state: 'ERROR', errorCategory: 'permanent' });
    const [part] = post.value;
    expect(part).toMatchObject({ state: 'ERROR', errorCategory: 'permanent' });
    expect(part?.attempts).toEqual([{
      at: expect.any(String) as string,
      category: 'permanent',
      message: expect.stringContaining('Text character limit exceeded') as string,
      httpStatus: 422,
    }]);

    const failed = await delivered(receiver, 'post.failed', postId);
    expect(eventDataSchemas['post.failed'].safeParse(failed.data).success).toBe(true);
    expect(failed.data).toMatchObject({
      category: 'permanent',
      attempts: [{ partId: postId, category: 'permanent', at: part?.attempts[0]?.at }],
    });
    expect(receiver.received.every((request) => request.signatureValid)).toBe(true);

    const told = await world.ctx.db.notifications.findOne({
      organizationId: org.organizationId, content: { $regex: '^Your post could not be published' },
    }).lean();
    expect(told?.content).toContain('(the platform refused the post)');
  });

  it('keeps every retried attempt, and tells the category of a platform that stays down', async () => {
    const { org, receiver } = await subscribedOrganization(['post.failed', 'post.retrying']);
    const down = { status: 503, body: { error: 'Service Unavailable' } };
    // Exactly one refusal per attempt: any left over would be the next test's.
    world.simulator.failNext(...Array.from({ length: world.ctx.config.PUBLISH_ATTEMPTS }, () => down));
    const postId = await publishNow(world.stack.baseUrl, org, ['Never up']);
    const failed = await delivered(receiver, 'post.failed', postId);
    const attempts = failed.data.attempts as { category: string }[];
    const retries = bodies(receiver).filter((body) => body.type === 'post.retrying' && body.data.postId === postId);
    expect(failed.data.category).toBe('retryable');
    // Every attempt but the last was retried, and told so.
    expect(attempts).toHaveLength(world.ctx.config.PUBLISH_ATTEMPTS);
    expect(retries).toHaveLength(world.ctx.config.PUBLISH_ATTEMPTS - 1);
    expect(attempts.every((attempt) => attempt.category === 'retryable')).toBe(true);
    expect(retries.every((retry) => retry.data.category === 'retryable' && retry.data.nextAttemptAt === null))
      .toBe(true);
  });

  it('tells post.retrying with the reset time on a 429, then post.published', async () => {
    const { org, receiver } = await subscribedOrganization(['post.retrying', 'post.published']);
    const resetAt = new Date(Date.now() + 1_200);
    world.simulator.failNext({
      status: 429,
      body: { error: 'Too many requests' },
      headers: { 'X-RateLimit-Limit': '300', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': resetAt.toISOString() },
    });
    const postId = await publishNow(world.stack.baseUrl, org, ['After the throttle']);
    await delivered(receiver, 'post.published', postId);
    const told = bodies(receiver).filter((body) => body.data.postId === postId);
    expect(told.map((body) => body.type)).toEqual(['post.retrying', 'post.published']);
    const [retrying] = told;
    expect(eventDataSchemas['post.retrying'].safeParse(retrying?.data).success).toBe(true);
    expect(retrying?.data).toMatchObject({ category: 'rate_limited', provider: 'mastodon' });
    expect(Date.parse(String(retrying?.data.nextAttemptAt))).toBeGreaterThan(Date.now() - 60_000);

    // The published part keeps the attempt that was throttled; it has no failure category.
    const answer = await api(world.stack.baseUrl, org.apiKey, `${prefix}/posts/${postId}`);
    const post = answer.body as PostAnswer;
    expect(post).toMatchObject({ state: 'PUBLISHED', errorCategory: null });
    expect(post.value[0]?.attempts).toMatchObject([{ category: 'rate_limited', httpStatus: 429 }]);
  });
});
