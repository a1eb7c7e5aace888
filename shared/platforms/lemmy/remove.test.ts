import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLemmySimulator, type LemmySimulator } from '../../../test/simulators/lemmy/lemmy-simulator.ts';
import { aliceChannel, communities, seedInstance } from '../../../test/simulators/lemmy/lemmy-test-channel.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { createLemmyAdapter } from './adapter.ts';

const adapter = createLemmyAdapter({ timeoutMs: 5_000, userHosts: connectionPolicyFor(true) });
let simulator: LemmySimulator;
let channel: ChannelCredentials;

beforeAll(async () => {
  simulator = await startLemmySimulator();
  seedInstance(simulator);
  channel = await aliceChannel(simulator);
});

afterAll(async () => {
  await simulator.close();
});

const part = (content: string) => ({
  channel, content, media: [], settings: { community_id: communities.technology, name: content },
  idempotencyKey: content, checkpoint: memoryCheckpoint(),
});

describe('Lemmy adapter: removing posts and comments', () => {
  it('marks the comment, then the post, deleted by their creator; a missing one counts as gone', async () => {
    const post = await adapter.publish(part('Lemmy, soon deleted'));
    const comment = await adapter.comment({ ...part('A comment under it'), parentReleaseId: post.releaseId });
    await adapter.remove?.(channel, { releaseId: comment.releaseId, settings: {} });
    await adapter.remove?.(channel, { releaseId: post.releaseId, settings: {} });
    expect(simulator.state.posts.find((item) => String(item.id) === post.releaseId)?.deleted).toBe(true);
    const commentId = Number(comment.releaseId.split('_')[1]);
    expect(simulator.state.comments.find((item) => item.id === commentId)?.deleted).toBe(true);
    expect(simulator.requestsTo('POST /api/v3/post/delete')).toHaveLength(1);
    await expect(adapter.remove?.(channel, { releaseId: '999999', settings: {} })).resolves.toBeUndefined();
  });
});
