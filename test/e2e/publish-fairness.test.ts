import { describe, expect, it } from 'vitest';
import { api, organizationWithMastodon } from '../support/fixtures.ts';
import { settledParts } from '../support/publish-now.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';

/**
 * Turns between tenants (shared/queue/tenant-turns.ts): when more posts are due than the workers
 * publish at once, every organization's first post goes before any organization's second. One
 * platform call at a time here, so the order the simulator receives the statuses in is the order
 * the worker took the jobs in.
 */
describe('publishing a burst fairly between organizations', () => {
  const world = useSimulatedStack({
    overrides: { PUBLISH_CONCURRENCY: '1', PUBLISH_UPLOAD_CONCURRENCY: '1', PUBLISH_ACCOUNT_CONCURRENCY: '1' },
  });
  const backlog = 10;

  it('publishes another organization\'s single post among the first, not after a backlog due with it', async () => {
    const { simulator } = world;
    const busy = await organizationWithMastodon(world.ctx, simulator.origin, simulator.addAccount('busy'));
    const other = await organizationWithMastodon(world.ctx, simulator.origin, simulator.addAccount('other'));
    // All due at the same moment, the other organization's post created last: first in, last out before.
    const date = new Date(Date.now() + 4_000).toISOString();
    const schedule = async (org: { apiKey: string; channelId: string }, content: string): Promise<string> => {
      const response = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
        method: 'POST',
        body: { type: 'schedule', date, posts: [{ integration: { id: org.channelId }, value: [{ content }] }] },
      });
      expect(response.status).toBe(201);
      return (response.body as { postId: string }[])[0]?.postId ?? '';
    };
    const posts: string[] = [];
    for (let index = 0; index < backlog; index += 1) posts.push(await schedule(busy, `Backlog ${index}`));
    posts.push(await schedule(other, 'The other organization'));
    expect(Date.now()).toBeLessThan(Date.parse(date));

    for (const postId of posts) {
      const [root] = await settledParts(world.ctx.db, postId);
      expect(root?.state).toBe('PUBLISHED');
    }
    const order = simulator.statuses.map((status) => status.text);
    expect(order.filter((text) => text.startsWith('Backlog'))).toHaveLength(backlog);
    // The worker holds three jobs at once (one call slot, two jobs per slot, one upload slot):
    // the other organization's post is among them, not the eleventh.
    expect(order.indexOf('The other organization')).toBeLessThan(3);
  });
});
