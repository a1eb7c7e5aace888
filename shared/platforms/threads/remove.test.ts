import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { startThreadsSimulator, type ThreadsSimulator } from '../../../test/simulators/threads/threads-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import { createThreadsAdapter } from './adapter.ts';
import { threadsScopes } from './connect.ts';

const ada = '25000000000000001';
const profile = (id: string, username: string) => ({
  id, username, name: username, profilePictureUrl: `https://cdn.example/${username}.jpg`, biography: '',
});

describe('Threads adapter: deleting posts and replies with DELETE /{media-id}', () => {
  let threads: ThreadsSimulator;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;

  beforeAll(async () => {
    threads = await startThreadsSimulator();
    threads.addUser(profile(ada, 'ada'));
    // A channel connected today holds exactly the scopes connect asks for.
    channel = { channelId: 'c1', accessToken: threads.tokenFor(ada, [...threadsScopes]), instanceUrl: null };
    adapter = createThreadsAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, threads.app);
  });
  afterAll(async () => { await threads.close(); });

  const part = (content: string, as = channel) => ({
    channel: as, content, media: [], settings: {}, idempotencyKey: content, checkpoint: memoryCheckpoint(),
  });
  function removeAs(as: ChannelCredentials, releaseId: string): Promise<void> {
    if (adapter.remove === undefined) throw new Error('the Threads adapter has no remove');
    return adapter.remove(as, { releaseId, settings: {} });
  }
  const deletions = () => threads.received.filter((request) => request.method === 'DELETE');

  it('deletes the reply, then the post, each by its id; a second removal of either resolves', async () => {
    const post = await adapter.publish(part('Soon gone from Threads'));
    const reply = await adapter.comment({ ...part('A later part'), parentReleaseId: post.releaseId });
    const ids = () => threads.publishing.threads.map((thread) => thread.id);
    expect(ids()).toEqual(expect.arrayContaining([post.releaseId, reply.releaseId]));

    await adapter.remove?.(channel, { releaseId: reply.releaseId, settings: {} });
    await adapter.remove?.(channel, { releaseId: post.releaseId, settings: {} });

    expect(deletions().map((request) => request.path)).toEqual([`/v1.0/${reply.releaseId}`, `/v1.0/${post.releaseId}`]);
    expect(ids()).not.toContain(post.releaseId);
    expect(ids()).not.toContain(reply.releaseId);
    const recent = await adapter.recentContent(channel);
    expect(recent.some((item) => item.id === post.releaseId)).toBe(false);

    // Retried after a lost answer, or deleted by hand first: Graph's "does not exist" counts as removed.
    await expect(adapter.remove?.(channel, { releaseId: post.releaseId, settings: {} })).resolves.toBeUndefined();
    expect(deletions()).toHaveLength(3);
  });

  it('reads a channel connected before SPS asked for threads_delete as disconnected, saying to reconnect', async () => {
    const scopes = threadsScopes.filter((scope) => scope !== 'threads_delete');
    const older = { ...channel, accessToken: threads.tokenFor(ada, scopes) };
    const post = await adapter.publish(part('Posted by an older channel', older));

    const error = await platformFailure(removeAs(older, post.releaseId));
    expect(error.kind).toBe('disconnected');
    expect(error.message).toMatch(/connect the account again/);
    expect(threads.publishing.threads.some((thread) => thread.id === post.releaseId)).toBe(true);
  });

  it('does not count another profile\'s post as removed: Graph hides it, so it reads as gone', async () => {
    threads.addUser(profile('25000000000000002', 'grace'));
    const grace = { ...channel, accessToken: threads.tokenFor('25000000000000002', [...threadsScopes]) };
    const theirs = await adapter.publish(part('Grace\'s own', grace));

    await expect(adapter.remove?.(channel, { releaseId: theirs.releaseId, settings: {} })).resolves.toBeUndefined();
    expect(threads.publishing.threads.some((thread) => thread.id === theirs.releaseId)).toBe(true);
  });
});
