import { describe, expect, it } from 'vitest';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { publishNow, settledParts } from '../../../test/support/publish-now.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';
import { waitFor } from '../../../test/support/stack.ts';

interface PostAnswer {
  id: string;
  state: string;
  value: { id: string; state: string; releaseId: string | null; error: string | null }[];
}

/**
 * POST /posts/:id/retry through the whole stack (api, queue, publish worker) against the
 * Mastodon simulator, whose status creation is made to refuse a thread's later parts.
 */
describe('POST /posts/:id/retry', () => {
  const world = useSimulatedStack();
  const refused = { status: 422, body: { error: 'Validation failed: the instance refused this reply' } };

  async function organization() {
    const token = world.simulator.addAccount(`retry${Math.random().toString(36).slice(2, 8)}`);
    return organizationWithMastodon(world.ctx, world.simulator.origin, token);
  }

  const retry = (org: { apiKey: string }, id: string) =>
    api(world.stack.baseUrl, org.apiKey, `/api/public/v1/posts/${id}/retry`, { method: 'POST' });

  /** A 409 `conflict` whose message says why. */
  function expectConflict(answer: { status: number; body: unknown }, reason: RegExp): void {
    expect(answer.status).toBe(409);
    const { error, message } = answer.body as { error: string; message: string };
    expect(error).toBe('conflict');
    expect(message).toMatch(reason);
  }

  const statusesWith = (text: string) => world.simulator.statuses.filter((status) => status.text === text);
  const attemptsAt = (text: string) => world.simulator.idempotencyKeysFor(text).length;

  /** A thread of three parts whose root and first reply publish and whose last reply is refused. */
  async function threadFailedAtLastReply(org: { apiKey: string; channelId: string }, tag: string) {
    const texts = [`${tag} 1/3`, `${tag} 2/3`, `${tag} 3/3`];
    world.simulator.failNext('pass', 'pass', refused);
    const postId = await publishNow(world.stack.baseUrl, org, texts);
    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED', 'ERROR']);
    return { postId, texts };
  }

  async function published(postId: string) {
    return waitFor(async () => {
      const parts = await world.ctx.db.posts.find({ $or: [{ _id: postId }, { rootPostId: postId }] })
        .sort({ position: 1 }).lean();
      return parts.every((part) => part.state === 'PUBLISHED') ? parts : undefined;
    }, { what: `post ${postId} to be published`, timeoutMs: 30_000 });
  }

  it('sends only the refused reply, answering the last published one, and tells of the publication', async () => {
    const org = await organization();
    const { postId, texts } = await threadFailedAtLastReply(org, 'Resumed');
    const [rootText, replyText, lastText] = texts;

    const answer = await retry(org, postId);
    expect(answer.status).toBe(202);
    const post = answer.body as PostAnswer;
    expect(post.id).toBe(postId);
    expect(post.value.slice(0, 2).map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    // The worker may have sent it already by the time the answer is read.
    expect(['QUEUE', 'PUBLISHED']).toContain(post.value[2]?.state);
    expect(post.value[2]?.error).toBeNull();

    const parts = await published(postId);
    expect(statusesWith(rootText ?? '')).toHaveLength(1);
    expect(attemptsAt(rootText ?? '')).toBe(1);
    expect(attemptsAt(replyText ?? '')).toBe(1);
    // Refused once, then sent once by the retry.
    expect(attemptsAt(lastText ?? '')).toBe(2);
    const [last] = statusesWith(lastText ?? '');
    expect(last?.in_reply_to_id).toBe(statusesWith(replyText ?? '')[0]?.id);
    expect(parts.map((part) => part.releaseId)).toEqual(texts.map((text) => statusesWith(text)[0]?.id));

    const told = await waitFor(async () => {
      const found = await world.ctx.db.notifications.findOne({
        organizationId: org.organizationId, content: { $regex: '^Your post was published' },
      }).lean();
      return found ?? undefined;
    }, { what: 'the publication notification' });
    expect(told.link).toBe(parts[0]?.releaseURL);
  });

  it('publishes once when two retries arrive together: one is accepted, the other refused', async () => {
    const org = await organization();
    const { postId, texts } = await threadFailedAtLastReply(org, 'Raced');
    const answers = await Promise.all([retry(org, postId), retry(org, postId)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
    const loser = answers.find((answer) => answer.status === 409);
    expect(loser?.body).toMatchObject({ error: 'conflict' });

    await published(postId);
    const lastText = texts[2] ?? '';
    expect(statusesWith(lastText)).toHaveLength(1);
    expect(attemptsAt(lastText)).toBe(2);
    expect(attemptsAt(texts[0] ?? '')).toBe(1);
  });

  it('answers 409 when there is nothing to retry: published, queued, or a draft', async () => {
    const org = await organization();
    const postId = await publishNow(world.stack.baseUrl, org, ['All out 1/2', 'All out 2/2']);
    await published(postId);
    const done = await retry(org, postId);
    expectConflict(done, /every part is published/);

    const create = async (type: 'schedule' | 'draft') => {
      const created = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
        method: 'POST',
        body: {
          type, date: '2035-01-01T10:00:00Z',
          posts: [{ integration: { id: org.channelId }, value: [{ content: `Later ${type}` }] }],
        },
      });
      expect(created.status).toBe(201);
      return (created.body as { postId: string }[])[0]?.postId ?? '';
    };
    const queued = await retry(org, await create('schedule'));
    expectConflict(queued, /still queued/);
    const draft = await retry(org, await create('draft'));
    expectConflict(draft, /is a draft/);
  });

  it('answers 409 for a part the platform may have published unconfirmed, and leaves it unsent', async () => {
    const org = await organization();
    const { postId, texts } = await threadFailedAtLastReply(org, 'Unconfirmed');
    // What publish-thread.ts leaves when a platform lost its answer and cannot be asked.
    await world.ctx.db.posts.updateOne({ rootPostId: postId, position: 2 }, { $set: { releaseId: 'missing' } });
    const answer = await retry(org, postId);
    expectConflict(answer, /part 2 .* without confirming/);
    const reply = await world.ctx.db.posts.findOne({ rootPostId: postId, position: 2 }).lean();
    expect(reply).toMatchObject({ state: 'ERROR', releaseId: 'missing' });
    expect(attemptsAt(texts[2] ?? '')).toBe(1);
  });

  it('answers 404 for another organization\'s post, a thread part, a deleted post and a malformed id', async () => {
    const org = await organization();
    const other = await organization();
    const { postId } = await threadFailedAtLastReply(org, 'Not yours');
    const stranger = await retry(other, postId);
    expect(stranger.status).toBe(404);
    expect(stranger.body).toMatchObject({ error: 'not_found' });

    const detail = await api(world.stack.baseUrl, org.apiKey, `/api/public/v1/posts/${postId}`);
    const replyId = (detail.body as PostAnswer).value[2]?.id ?? '';
    expect((await retry(org, replyId)).status).toBe(404);
    expect((await retry(org, 'not-an-id')).status).toBe(404);

    const removed = await api(world.stack.baseUrl, org.apiKey, `/api/public/v1/posts/${postId}`, { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect((await retry(org, postId)).status).toBe(404);
    // Nothing was queued for it: the refused reply stays unsent.
    const parts = await world.ctx.db.posts.find({ rootPostId: postId }).sort({ position: 1 }).lean();
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'ERROR']);
  });
});
