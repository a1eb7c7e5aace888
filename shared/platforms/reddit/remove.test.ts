import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formBody } from '../../../test/simulators/kit/simulator-server.ts';
import { ada, addTestSubreddits, connectAda } from '../../../test/simulators/reddit/reddit-channel.ts';
import { startRedditSimulator, type RedditSimulator } from '../../../test/simulators/reddit/reddit-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createRedditAdapter } from './adapter.ts';
import { redditConnect } from './connect.ts';

async function failure(promise: Promise<unknown> | undefined): Promise<PlatformError> {
  const error: unknown = await promise?.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('Reddit adapter: removing posts and comments with POST /api/del', () => {
  let sim: RedditSimulator;
  let app: PlatformApp;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;

  beforeAll(async () => {
    sim = await startRedditSimulator();
    sim.addUser(ada);
    addTestSubreddits(sim);
    ({ app, channel } = await connectAda(sim));
    adapter = createRedditAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, app);
  });
  afterAll(async () => { await sim.close(); });

  const part = (title: string, as = channel) => ({
    channel: as, content: `${title}, the body`, media: [], idempotencyKey: title, checkpoint: memoryCheckpoint(),
    settings: { subreddit: 'typescript', title, type: 'self' },
  });

  /** What `/api/info` shows of an item: Reddit keeps a deleted one, its author and text `[deleted]`. */
  async function shown(fullname: string): Promise<Record<string, unknown> | undefined> {
    const response = await fetch(`${sim.url}/api/info?id=${fullname}&raw_json=1`, {
      headers: { Authorization: `bearer ${channel.accessToken}`, 'User-Agent': 'web:test:0.1 (SPS tests)' },
    });
    const body = await response.json() as { data: { children: { data: Record<string, unknown> }[] } };
    return body.data.children[0]?.data;
  }

  it('deletes the comment, then the submission, each by its fullname; again resolves', async () => {
    const post = await adapter.publish(part('Soon deleted from Reddit'));
    const comment = await adapter.comment({ ...part('A later part'), parentReleaseId: post.releaseId });
    expect(post.releaseId).toMatch(/^t3_/);
    expect(comment.releaseId).toMatch(/^t1_/);

    await adapter.remove?.(channel, { releaseId: comment.releaseId, settings: {} });
    await adapter.remove?.(channel, { releaseId: post.releaseId, settings: part('Soon deleted from Reddit').settings });

    const sent = sim.requestsTo('POST /api/del').map((request) => formBody(request).get('id'));
    expect(sent).toEqual([comment.releaseId, post.releaseId]);
    expect(sim.records.comment(comment.releaseId)?.deleted).toBe(true);
    expect(sim.records.post(post.releaseId)?.deleted).toBe(true);
    expect(await shown(post.releaseId)).toMatchObject({ author: '[deleted]', selftext: '[deleted]' });
    expect(await shown(comment.releaseId)).toMatchObject({ author: '[deleted]', body: '[deleted]' });
    const recent = await adapter.recentContent(channel);
    expect(recent.some((item) => item.id === post.releaseId)).toBe(false);

    // A removal retried after a lost answer: Reddit answers an item deleted before with 200 too.
    await expect(adapter.remove?.(channel, { releaseId: post.releaseId, settings: {} })).resolves.toBeUndefined();
    await expect(adapter.remove?.(channel, { releaseId: comment.releaseId, settings: {} })).resolves.toBeUndefined();
    expect(sim.requestsTo('POST /api/del')).toHaveLength(4);
  });

  it('classifies a token without the edit scope as disconnected, saying to connect again', async () => {
    const withoutEdit = {
      ...redditConnect,
      provider: (given: PlatformApp) => {
        const provider = redditConnect.provider(given);
        return { ...provider, scopes: provider.scopes.filter((scope) => scope !== 'edit') };
      },
    };
    const older = await connectAda(sim, withoutEdit);
    const post = await adapter.publish(part('Made by an older channel', older.channel));
    const error = await failure(adapter.remove?.(older.channel, { releaseId: post.releaseId, settings: {} }));
    expect(error).toMatchObject({ kind: 'disconnected', httpStatus: 403 });
    expect(error.message).toBe(
      'Reddit refused SPS the deletion (the edit scope): connect the account again to grant it',
    );
    expect(sim.records.post(post.releaseId)?.deleted).toBeUndefined();
  });

  it('refuses, without calling Reddit, a release id that is not a post\'s or comment\'s fullname', async () => {
    const before = sim.requestsTo('POST /api/del').length;
    const error = await failure(adapter.remove?.(channel, { releaseId: '1a2b3c', settings: {} }));
    expect(error).toMatchObject({ kind: 'permanent' });
    expect(error.message).toBe('1a2b3c is not a Reddit post or comment');
    expect(sim.requestsTo('POST /api/del')).toHaveLength(before);
  });
});
