import { describe, expect, it } from 'vitest';
import { organizationWithMastodon } from '../support/fixtures.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';

/**
 * Exactly once on Mastodon rests on the Idempotency-Key: every attempt at one part sends the
 * same key, and Mastodon answers a repeated key with the status it already made. These tests
 * count what reached the simulator, through the whole stack (api, queue, publish worker).
 */
describe('publishing to Mastodon exactly once', () => {
  const world = useSimulatedStack({ overrides: { PUBLISH_ATTEMPTS: '5', PUBLISH_BACKOFF_MS: '20' } });

  async function organization() {
    const token = world.simulator.addAccount(`exact${Math.random().toString(36).slice(2, 8)}`);
    return organizationWithMastodon(world.ctx, world.simulator.origin, token);
  }



  it('sends the same Idempotency-Key on every retry of one part, and a different one per part', async () => {
    const org = await organization();
    // Part 1 fails once, then part 2 fails once after part 1 is accepted.
    const unavailable = { status: 503, body: { error: 'Service Unavailable' } };
    world.simulator.failNext(unavailable, 'pass', unavailable);
    const postId = await publishNow(world.stack.baseUrl, org, ['Keyed 1/2', 'Keyed 2/2']);
    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);

    const firstKeys = world.simulator.idempotencyKeysFor('Keyed 1/2');
    const secondKeys = world.simulator.idempotencyKeysFor('Keyed 2/2');
    const keyOf = (index: number) => `sps-post-${parts[index]?._id.toString() ?? ''}`;
    expect(firstKeys).toEqual([keyOf(0), keyOf(0)]);
    expect(secondKeys).toEqual([keyOf(1), keyOf(1)]);

    const statuses = world.simulator.statuses.filter((status) => status.text.startsWith('Keyed'));
    expect(statuses.map((status) => status.text)).toEqual(['Keyed 1/2', 'Keyed 2/2']);
    expect(statuses[1]?.in_reply_to_id).toBe(statuses[0]?.id);
    expect(parts.map((part) => part.releaseId)).toEqual(statuses.map((status) => status.id));
  });

  it('does not duplicate a status whose answer was lost: the retry gets the status Mastodon already made', async () => {
    const org = await organization();
    const lostBefore = world.simulator.lostResponses;
    world.simulator.failNext({ loseResponse: true });
    const postId = await publishNow(world.stack.baseUrl, org, ['Answer lost once']);
    const [root] = await settledParts(world.ctx.db, postId);
    expect(root?.state).toBe('PUBLISHED');
    expect(world.simulator.lostResponses).toBe(lostBefore + 1);

    const made = world.simulator.statuses.filter((status) => status.text === 'Answer lost once');
    expect(made).toHaveLength(1);
    const keys = world.simulator.idempotencyKeysFor('Answer lost once');
    expect(keys).toHaveLength(2);
    expect(new Set(keys)).toEqual(new Set([`sps-post-${postId}`]));
    expect(root?.releaseId).toBe(made[0]?.id);
    expect(root?.releaseURL).toBe(made[0]?.url);
  });

  it('does not duplicate a thread reply whose answer was lost, and keeps it a reply to the first part', async () => {
    const org = await organization();
    world.simulator.failNext('pass', { loseResponse: true });
    const postId = await publishNow(world.stack.baseUrl, org, ['Lost reply 1/2', 'Lost reply 2/2']);
    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    const statuses = world.simulator.statuses.filter((status) => status.text.startsWith('Lost reply'));
    expect(statuses.map((status) => status.text)).toEqual(['Lost reply 1/2', 'Lost reply 2/2']);
    expect(statuses[1]?.in_reply_to_id).toBe(statuses[0]?.id);
    expect(world.simulator.idempotencyKeysFor('Lost reply 1/2')).toHaveLength(1);
    expect(world.simulator.idempotencyKeysFor('Lost reply 2/2')).toHaveLength(2);
    expect(parts.map((part) => part.releaseId)).toEqual(statuses.map((status) => status.id));
  });
});
