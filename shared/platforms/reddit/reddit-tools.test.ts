import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ada, addTestSubreddits, connectAda } from '../../../test/simulators/reddit/reddit-channel.ts';
import { startRedditSimulator, type RedditSimulator } from '../../../test/simulators/reddit/reddit-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createRedditAdapter } from './adapter.ts';
import { reddit } from './definition.ts';

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error: unknown = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('Reddit adapter: tools, recent content and analytics', () => {
  let sim: RedditSimulator;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;

  beforeAll(async () => {
    sim = await startRedditSimulator();
    sim.addUser(ada);
    addTestSubreddits(sim);
    // Enough subscriptions for Reddit to answer them in two pages of 100.
    for (let index = 0; index < 120; index += 1) {
      sim.addSubreddit({ name: `club_${String(index)}`, title: `Club ${String(index)}`, members: [ada.name] });
    }
    const connected = await connectAda(sim);
    channel = connected.channel;
    adapter = createRedditAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, connected.app);
  });
  afterAll(async () => { await sim.close(); });

  function tool(name: string, data: Record<string, unknown> = {}): Promise<unknown> {
    const handler = adapter.tools[name];
    if (handler === undefined) throw new Error(`no tool ${name}`);
    return handler(channel, data);
  }

  it('implements every tool the definition declares, and no other', () => {
    expect(Object.keys(adapter.tools).sort()).toEqual(reddit.tools.map((item) => item.methodName).sort());
  });

  it('searches subreddits a user can post to', async () => {
    const found = await tool('searchSubreddits', { q: 'typescript', limit: 10 }) as { name: string }[];
    expect(found.map((item) => item.name)).toEqual(['typescript', 'typescript_jobs']);
    expect(found[0]).toEqual({
      name: 'typescript', title: 'TypeScript', description: 'Typed JavaScript', subscribers: 250_000, nsfw: false,
      type: 'public', icon: 'https://styles.redditmedia.com/typescript.png?width=256&s=1f',
    });
    expect(await tool('searchSubreddits', { q: 'secret' })).toEqual([]);
    const query = sim.requestsTo('GET /subreddits/search').at(-1)?.query;
    expect(query?.get('q')).toBe('secret');
  });

  it('lists every subscription, page after page', async () => {
    const mine = await tool('mySubreddits') as { name: string }[];
    expect(mine).toHaveLength(123);
    expect(mine.slice(0, 3).map((item) => item.name)).toEqual(['typescript', 'pics', 'askscience']);
    const pages = sim.requestsTo('GET /subreddits/mine/subscriber').map((request) => request.query.get('after'));
    expect(pages).toEqual([null, 't5_club_96']);
  });

  it('reads what a subreddit takes and requires', async () => {
    expect(await tool('subredditSettings', { subreddit: 'pics' })).toMatchObject({
      name: 'pics', submissionType: 'link', allowImages: true, allowVideos: true, allowGalleries: true,
      linkFlairEnabled: true,
    });
    expect(await tool('postRequirements', { subreddit: 'pics' })).toMatchObject({
      flairRequired: true, bodyPolicy: 'notAllowed', titlePatterns: [], allowedDomains: [],
    });
    expect(await tool('postRequirements', { subreddit: 'typescript' })).toMatchObject({ flairRequired: false });
  });

  it('lists link flairs and rules', async () => {
    const colours = { backgroundColor: '#ff4500', textColor: 'light' };
    expect(await tool('flairs', { subreddit: 'typescript' })).toEqual([
      { id: 'f-help', text: 'Help', textEditable: false, modOnly: false, ...colours },
      { id: 'f-show', text: 'Showcase', textEditable: true, modOnly: false, ...colours },
    ]);
    expect(await tool('rules', { subreddit: 'typescript' })).toEqual([
      { name: 'Be civil', description: 'No personal attacks.', appliesTo: 'all', violationReason: 'Be civil' },
    ]);
  });

  it('refuses bad input with a readable message, and passes on Reddit\'s refusals', async () => {
    const named = await failure(tool('flairs', { subreddit: 'r/typescript' }));
    expect(named).toMatchObject({ kind: 'permanent' });
    expect(named.message).toBe('flairs: subreddit: must be a subreddit name without "r/", such as "typescript"');
    const empty = await failure(tool('searchSubreddits', {}));
    expect(empty.message).toMatch(/^searchSubreddits: q: /);
    const hidden = await failure(tool('rules', { subreddit: 'secret_club' }));
    expect(hidden).toMatchObject({ kind: 'permanent', httpStatus: 403, message: 'Reddit: Forbidden (private)' });
    const missing = await failure(tool('subredditSettings', { subreddit: 'no_such_place' }));
    expect(missing).toMatchObject({ kind: 'permanent', httpStatus: 404 });
  });

  it('lists the account\'s latest posts for a missing release id', async () => {
    const published = await adapter.publish({
      channel, content: 'recent', media: [], settings: { subreddit: 'typescript', title: 'Recent one', type: 'self' },
      idempotencyKey: 'k-recent', checkpoint: memoryCheckpoint(),
    });
    const recent = await adapter.recentContent(channel);
    expect(recent[0]).toEqual({ id: published.releaseId, url: published.releaseURL });
  });

  it('reads karma, and a post\'s and a comment\'s counters', async () => {
    expect(await adapter.analytics?.account(channel)).toEqual([
      { label: 'Post karma', value: 1_204 }, { label: 'Comment karma', value: 311 }, { label: 'Karma', value: 1_515 },
    ]);
    const root = await adapter.publish({
      channel, content: 'counted', media: [], settings: { subreddit: 'typescript', title: 'Counted', type: 'self' },
      idempotencyKey: 'k-counted', checkpoint: memoryCheckpoint(),
    });
    const reply = await adapter.comment({
      channel, content: 'a reply', media: [], settings: {}, idempotencyKey: 'k-reply', checkpoint: memoryCheckpoint(),
      parentReleaseId: root.releaseId,
    });
    const post = sim.records.post(root.releaseId);
    if (post !== undefined) Object.assign(post, { score: 57, upvoteRatio: 0.934, crossposts: 2 });
    expect(await adapter.analytics?.post(channel, root.releaseId)).toEqual([
      { label: 'Score', value: 57 }, { label: 'Upvote ratio (%)', value: 93 }, { label: 'Comments', value: 1 },
      { label: 'Crossposts', value: 2 },
    ]);
    expect(await adapter.analytics?.post(channel, reply.releaseId)).toEqual([{ label: 'Score', value: 1 }]);
    const gone = await failure(adapter.analytics?.post(channel, 't3_zzzzzz') ?? Promise.resolve());
    expect(gone.message).toBe('Reddit has no t3_zzzzzz: it was deleted or cannot be seen');
  });
});
