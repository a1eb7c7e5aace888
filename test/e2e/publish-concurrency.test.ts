import { describe, expect, it } from 'vitest';
import { organizationWithMastodon } from '../support/fixtures.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { waitFor } from '../support/stack.ts';

/**
 * A worker process keeps as many platform calls in flight as its slots allow (PUBLISH_CONCURRENCY,
 * default 200), at most PUBLISH_ACCOUNT_CONCURRENCY per account: posts of many channels are all at the
 * platform at once while it is slow, and two posts of one channel, bounded to one, never are. The
 * simulator holds every status creation until the test lets them go, so what is counted is what was in
 * flight, not how fast it went.
 */
describe('publishing many channels at once through the stack', () => {
  // One post per account at a time (the default is 5), so the test sees the account bound hold.
  const world = useSimulatedStack({ overrides: { PUBLISH_ACCOUNT_CONCURRENCY: '1' } });
  const channels = 12;

  it('has a post of every channel at the platform at once, and one post of a channel at a time', async () => {
    const { simulator } = world;
    const organizations = await Promise.all(Array.from({ length: channels }, (_, index) =>
      organizationWithMastodon(world.ctx, simulator.origin, simulator.addAccount(`wide${index}`))));
    const release = simulator.statusesInFlight.hold();
    const posts: string[] = [];
    try {
      // The first channel has a second post, which must wait for the first one's answer: both
      // are queued first, so the second would be at the platform before the others' are all there.
      const [busiest] = organizations;
      if (busiest === undefined) throw new Error('no organization was made');
      posts.push(await publishNow(world.stack.baseUrl, busiest, ['Wide 0']));
      posts.push(await publishNow(world.stack.baseUrl, busiest, ['Wide 0, again']));
      for (const [index, org] of organizations.entries()) {
        if (index > 0) posts.push(await publishNow(world.stack.baseUrl, org, [`Wide ${index}`]));
      }

      await waitFor(() => (simulator.statusesInFlight.now >= channels ? true : undefined), {
        what: `${channels} statuses in flight at once`, timeoutMs: 20_000,
      });
      expect(simulator.statusesInFlight.mostOnOneAccount).toBe(1);
    } finally {
      release();
    }

    for (const postId of posts) {
      const [root] = await settledParts(world.ctx.db, postId);
      expect(root?.state).toBe('PUBLISHED');
    }
    expect(simulator.statusesInFlight.most).toBeGreaterThanOrEqual(channels);
    expect(simulator.statusesInFlight.mostOnOneAccount).toBe(1);
    expect(simulator.statuses.filter((status) => status.text.startsWith('Wide'))).toHaveLength(channels + 1);
  });
});
