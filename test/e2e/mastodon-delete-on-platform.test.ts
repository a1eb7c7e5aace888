import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { organizationWithMastodon, api } from '../support/fixtures.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { deleteOnPlatform, removalDone } from '../support/remove-on-platform.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { waitFor } from '../support/stack.ts';
import { queuePrefixOf } from '../../shared/queue/queue-prefix.ts';
import { jobs } from '../../shared/queue/queues.ts';
import { createRedis } from '../../shared/queue/redis.ts';
import type { PostRemovalView } from '../../shared/domain/removal/removal-view.ts';

interface DeleteAnswer { id: string; deleted: true; removal?: PostRemovalView }

/**
 * DELETE /posts/:id?onPlatform=true through the whole stack (api, platform queue, removal worker)
 * against the Mastodon simulator: the statuses go, replies first, each once.
 */
describe('deleting a Mastodon post on the platform', () => {
  const world = useSimulatedStack({ overrides: { PUBLISH_ATTEMPTS: '3', PUBLISH_BACKOFF_MS: '20' } });

  async function organization() {
    const token = world.simulator.addAccount(`remove${Math.random().toString(36).slice(2, 8)}`);
    return organizationWithMastodon(world.ctx, world.simulator.origin, token);
  }

  const deletions = () => world.simulator.requests
    .filter((request) => request.method === 'DELETE')
    .map((request) => request.path.split('/').at(-1));

  it('removes a thread replies first, shows each part removed, tells post.deleted once', async () => {
    const org = await organization();
    const postId = await publishNow(world.stack.baseUrl, org, ['Going 1/3', 'Going 2/3', 'Going 3/3']);
    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
    const releaseIds = parts.map((part) => part.releaseId);
    const before = deletions().length;

    const planned = await deleteOnPlatform(world.stack.baseUrl, org.apiKey, `posts/${postId}`) as DeleteAnswer;
    expect(planned.deleted).toBe(true);
    expect(planned.removal?.provider).toBe('mastodon');
    expect(planned.removal?.parts.map((part) => [part.position, part.state, part.method])).toEqual([
      [0, 'queued', 'delete'], [1, 'queued', 'delete'], [2, 'queued', 'delete'],
    ]);

    const post = await removalDone(world.stack.baseUrl, org.apiKey, postId);
    expect(post.deletedAt).not.toBeNull();
    // Nothing left for the sweep of lost removals to find. The worker clears the mark in its next
    // write after the view shows every part settled, so a read between the two still sees it.
    const mark = await waitFor(async () => {
      const pending = (await world.ctx.db.posts.findById(postId).lean())?.removalPending;
      return pending === false ? pending : undefined;
    }, { what: `post ${postId}'s removal mark to clear`, timeoutMs: 5_000 });
    expect(mark).toBe(false);
    expect(post.removal.parts.map((part) => part.state)).toEqual(['removed', 'removed', 'removed']);
    expect(deletions().slice(before)).toEqual([...releaseIds].reverse());
    const left = world.simulator.statuses.filter((status) => status.text.startsWith('Going'));
    expect(left).toEqual([]);

    const events = await waitFor(async () => {
      const found = await world.ctx.db.events.find({ type: 'post.deleted', organizationId: org.organizationId }).lean();
      return found.length > 0 ? found : undefined;
    }, { what: 'post.deleted' });
    expect(events).toHaveLength(1);
    const body = JSON.parse(events[0]?.body ?? '{}') as { data: { postId: string; removal: PostRemovalView } };
    expect(body.data.postId).toBe(postId);
    expect(body.data.removal.parts.map((part) => part.state)).toEqual(['removed', 'removed', 'removed']);

    // The same job again (a duplicate under another id, as a retry or a second worker would run
    // it) finds every part settled: nothing is deleted twice, nothing told twice.
    const connection = createRedis(world.ctx.config, 'producer', world.ctx.logger);
    const queue = new Queue(jobs.removePost.queue, { connection, prefix: queuePrefixOf(world.ctx.config) });
    try {
      const again = await queue.add(jobs.removePost.name, { organizationId: org.organizationId, postId });
      await waitFor(async () => ((await again.isCompleted()) ? true : undefined), { what: 'the second removal job' });
    } finally {
      await queue.close();
      await connection.quit();
    }
    expect(deletions().slice(before)).toHaveLength(3);
    const told = await world.ctx.db.events.find({ type: 'post.deleted', organizationId: org.organizationId }).lean();
    expect(told).toHaveLength(1);
  });

  it('counts a status already gone as removed, and answers unpublished parts not_published at once', async () => {
    const org = await organization();
    const postId = await publishNow(world.stack.baseUrl, org, ['Deleted by hand']);
    const [root] = await settledParts(world.ctx.db, postId);
    const index = world.simulator.statuses.findIndex((status) => status.id === root?.releaseId);
    world.simulator.statuses.splice(index, 1);
    await deleteOnPlatform(world.stack.baseUrl, org.apiKey, `posts/${postId}`);
    const post = await removalDone(world.stack.baseUrl, org.apiKey, postId);
    expect(post.removal.parts.map((part) => part.state)).toEqual(['removed']);

    const draft = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'draft', posts: [{ integration: { id: org.channelId }, value: [{ content: 'never sent' }] }] },
    });
    const draftId = (draft.body as { postId: string }[])[0]?.postId ?? '';
    const answer = await deleteOnPlatform(world.stack.baseUrl, org.apiKey, `posts/${draftId}`) as DeleteAnswer;
    const { removal } = answer;
    expect(removal?.done).toBe(true);
    expect(removal?.parts.map((part) => part.state)).toEqual(['not_published']);
  });

  it('tries again what may pass (a 503, a lost answer), and settles refusals as failed with the platform\'s words',
    async () => {
      const org = await organization();
      const postId = await publishNow(world.stack.baseUrl, org, ['Retried 1/3', 'Retried 2/3', 'Retried 3/3']);
      const parts = await settledParts(world.ctx.db, postId);
      const before = deletions().length;
      // The last part: 503, then deleted with the answer lost, then found gone (404, on the job's last
      // attempt); the middle one: refused for good.
      world.simulator.failNextDeletion(
        { status: 503, body: { error: 'Service Unavailable' } },
        { loseResponse: true },
        'pass',
        { status: 422, body: { error: 'Validation failed: the status cannot be deleted' } },
      );
      await deleteOnPlatform(world.stack.baseUrl, org.apiKey, `posts/${postId}`);
      const post = await removalDone(world.stack.baseUrl, org.apiKey, postId);
      expect(post.removal.parts.map((part) => [part.state, part.category])).toEqual([
        ['removed', null], ['failed', 'permanent'], ['removed', null],
      ]);
      expect(post.removal.parts[1]?.message).toContain('the status cannot be deleted');
      const [first, second, third] = parts.map((part) => part.releaseId);
      expect(deletions().slice(before)).toEqual([third, third, third, second, first]);
      const left = world.simulator.statuses.filter((status) => status.text.startsWith('Retried'));
      expect(left.map((status) => status.text)).toEqual(['Retried 2/3']);
    });

  it('deletes once when a duplicate job runs while the first is still deleting', async () => {
    const org = await organization();
    const postId = await publishNow(world.stack.baseUrl, org, ['Raced']);
    const [root] = await settledParts(world.ctx.db, postId);
    const before = deletions().length;
    world.simulator.failNextDeletion({ delayMs: 400 });
    await deleteOnPlatform(world.stack.baseUrl, org.apiKey, `posts/${postId}`);
    await waitFor(() => (deletions().length > before ? true : undefined), { what: 'the first DELETE to arrive' });
    const connection = createRedis(world.ctx.config, 'producer', world.ctx.logger);
    const queue = new Queue(jobs.removePost.queue, { connection, prefix: queuePrefixOf(world.ctx.config) });
    try {
      // Under another id, as a second worker holding a stalled copy would run it: it finds the part's
      // lock held, is retried, and then finds the part removed.
      await queue.add(jobs.removePost.name, { organizationId: org.organizationId, postId }, {
        jobId: `dup-${postId}`, attempts: 10, backoff: { type: 'fixed', delay: 200 },
      });
      const post = await removalDone(world.stack.baseUrl, org.apiKey, postId);
      expect(post.removal.parts.map((part) => part.state)).toEqual(['removed']);
      await waitFor(async () => ((await queue.getJobState(`dup-${postId}`)) === 'completed' ? true : undefined), {
        what: 'the duplicate job to finish',
      });
    } finally {
      await queue.close();
      await connection.quit();
    }
    expect(deletions().slice(before)).toEqual([root?.releaseId]);
  });

  it('settles a part as failed when the platform still fails on the job\'s last attempt', async () => {
    const org = await organization();
    const postId = await publishNow(world.stack.baseUrl, org, ['Never deleted']);
    await settledParts(world.ctx.db, postId);
    const unavailable = { status: 503, body: { error: 'Service Unavailable' } };
    world.simulator.failNextDeletion(unavailable, unavailable, unavailable);
    await deleteOnPlatform(world.stack.baseUrl, org.apiKey, `posts/${postId}`);
    const post = await removalDone(world.stack.baseUrl, org.apiKey, postId);
    expect(post.removal.parts.map((part) => [part.state, part.category])).toEqual([['failed', 'retryable']]);
    expect(world.simulator.statuses.some((status) => status.text === 'Never deleted')).toBe(true);
  });

  it('deletes a group on the platforms: Mastodon\'s post removed, Medium\'s answered unsupported with the reason',
    async () => {
      const org = await organization();
      const mastodonChannel = await world.ctx.db.channels.findById(org.channelId).lean();
      if (mastodonChannel === null) throw new Error('the Mastodon channel is stored');
      const { _id: _mastodonId, ...fields } = mastodonChannel;
      const medium = await world.ctx.db.channels.create({ ...fields, provider: 'medium', name: 'Our Medium' });
      const group = `removal-${String(Date.now())}`;
      const created = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
        method: 'POST',
        body: { type: 'now', posts: [{ integration: { id: org.channelId }, group, value: [{ content: 'Grouped' }] }] },
      });
      const mastodonPost = (created.body as { postId: string }[])[0]?.postId ?? '';
      await settledParts(world.ctx.db, mastodonPost);
      const drafted = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
        method: 'POST',
        body: {
          type: 'draft',
          posts: [{ integration: { id: medium._id.toString() }, group, value: [{ content: 'On Medium' }] }],
        },
      });
      const mediumPost = (drafted.body as { postId: string }[])[0]?.postId ?? '';
      // As if Medium had published it: the API decides from Medium's declaration alone, calling nothing.
      await world.ctx.db.posts.updateOne({ _id: mediumPost }, { $set: { state: 'PUBLISHED', releaseId: 'medium-1' } });

      const answer = await deleteOnPlatform(world.stack.baseUrl, org.apiKey, `posts/group/${group}`);
      const { removals, deleted } = answer as { deleted: number; removals: PostRemovalView[] };
      expect(deleted).toBe(2);
      const byProvider = new Map(removals.map((removal) => [removal.provider, removal]));
      expect(byProvider.get('mastodon')?.parts.map((part) => part.state)).toEqual(['queued']);
      const mediumRemoval = byProvider.get('medium');
      expect(mediumRemoval?.done).toBe(true);
      expect(mediumRemoval?.parts.map((part) => part.state)).toEqual(['unsupported']);
      expect(mediumRemoval?.parts[0]?.reason).toContain('no call to edit, unpublish or delete');
      const removed = await removalDone(world.stack.baseUrl, org.apiKey, mastodonPost);
      expect(removed.removal.parts.map((part) => part.state)).toEqual(['removed']);
      expect(world.simulator.statuses.some((status) => status.text === 'Grouped')).toBe(false);
    });

  it('refuses onPlatform=true with series=true, deleting nothing', async () => {
    const org = await organization();
    const postId = await publishNow(world.stack.baseUrl, org, ['Not with a series']);
    await settledParts(world.ctx.db, postId);
    const url = `/api/public/v1/posts/${postId}?onPlatform=true&series=true`;
    const answer = await api(world.stack.baseUrl, org.apiKey, url, { method: 'DELETE' });
    expect(answer.status).toBe(400);
    expect((await api(world.stack.baseUrl, org.apiKey, `/api/public/v1/posts/${postId}`)).status).toBe(200);
  });

  it('keeps the plain delete as it was: no removal, and the post is gone from GET', async () => {
    const org = await organization();
    const postId = await publishNow(world.stack.baseUrl, org, ['Stays on Mastodon']);
    await settledParts(world.ctx.db, postId);
    const answer = await waitFor(async () => {
      const sent = await api(world.stack.baseUrl, org.apiKey, `/api/public/v1/posts/${postId}`, { method: 'DELETE' });
      return sent.status === 409 ? undefined : sent;
    }, { what: 'the plain DELETE to be taken' });
    expect(answer.body).toEqual({ id: postId, deleted: true });
    expect((await api(world.stack.baseUrl, org.apiKey, `/api/public/v1/posts/${postId}`)).status).toBe(404);
    expect(world.simulator.statuses.some((status) => status.text === 'Stays on Mastodon')).toBe(true);
  });
});
