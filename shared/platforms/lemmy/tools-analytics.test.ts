import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLemmySimulator, type LemmySimulator } from '../../../test/simulators/lemmy/lemmy-simulator.ts';
import { aliceChannel, communities, seedInstance } from '../../../test/simulators/lemmy/lemmy-test-channel.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, ToolHandler } from '../kit/platform-adapter.ts';
import { createLemmyAdapter } from './adapter.ts';
import { lemmy } from './definition.ts';

const adapter = createLemmyAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(true) });
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

function tool(name: string): ToolHandler {
  const handler = adapter.tools[name];
  if (handler === undefined) throw new Error(`no tool ${name}`);
  return handler;
}

async function post(name: string) {
  return adapter.publish({
    channel, content: `${name} body`, media: [], settings: { community_id: communities.technology, name },
    idempotencyKey: 'unused', checkpoint: memoryCheckpoint(),
  });
}

describe('Lemmy communities tools', () => {
  it('implements every tool the definition declares', () => {
    expect(Object.keys(adapter.tools).sort()).toEqual(lemmy.tools.map((declared) => declared.methodName).sort());
  });

  it('searches the communities the instance knows, most subscribed first, with their ids', async () => {
    const found = await tool('searchCommunities')(channel, { q: 'o' });
    const host = new URL(simulator.url).host;
    expect(found).toEqual([
      expect.objectContaining({
        id: communities.technology, address: `!technology@${host}`, subscribers: 2, subscribed: true,
      }),
      expect.objectContaining({ id: communities.announcements, postingRestrictedToMods: true, subscribers: 1 }),
      expect.objectContaining({ id: communities.english, title: 'English only', subscribed: false }),
    ]);
    const request = simulator.requestsTo('GET /api/v3/search').at(-1);
    expect(request?.query.get('type_')).toBe('Communities');
  });

  it('lists the account\'s subscriptions, or the instance\'s local communities', async () => {
    const subscribed = await tool('listCommunities')(channel, {}) as { id: number }[];
    expect(subscribed.map((community) => community.id)).toEqual([communities.technology, communities.announcements]);
    const local = await tool('listCommunities')(channel, { type: 'Local' }) as { id: number }[];
    expect(local.map((community) => community.id).sort()).toEqual([12, 13, 14, 15]);
  });

  it('resolves a remote community so the instance learns its id', async () => {
    const before = await tool('searchCommunities')(channel, { q: 'rust' });
    expect(before).toEqual([]);
    const resolved = await tool('resolveCommunity')(channel, { name: 'rust@programming.dev' });
    expect(resolved).toMatchObject({
      id: communities.remote, address: '!rust@programming.dev', url: 'https://programming.dev/c/rust',
    });
    expect(simulator.requestsTo('GET /api/v3/resolve_object').at(-1)?.query.get('q')).toBe('!rust@programming.dev');
    const after = await tool('searchCommunities')(channel, { q: 'rust' }) as { id: number }[];
    expect(after.map((community) => community.id)).toEqual([communities.remote]);
  });

  it('refuses bad input before calling the instance, and passes on the instance\'s "not found"', async () => {
    const before = simulator.received.length;
    const badType = await platformFailure(tool('listCommunities')(channel, { type: 'Everything' }));
    const message = 'listCommunities: type: must be Subscribed, Local or All';
    expect(badType).toMatchObject({ kind: 'permanent', message });
    const badName = await platformFailure(tool('resolveCommunity')(channel, { name: 'rust' }));
    expect(badName.message).toBe('resolveCommunity: name: write the community as !name@host');
    const noQuery = await platformFailure(tool('searchCommunities')(channel, {}));
    expect(noQuery.kind).toBe('permanent');
    expect(simulator.received.length).toBe(before);
    const unknown = await platformFailure(tool('resolveCommunity')(channel, { name: '!nothing@nowhere.example' }));
    expect(unknown.message).toContain('(couldnt_find_object)');
  });
});

describe('Lemmy analytics and recent content', () => {
  it('reads a post\'s score, votes and comments, and a comment\'s', async () => {
    const root = await post('Counted post');
    const reply = await adapter.comment({
      channel, content: 'A reply', media: [], settings: { community_id: communities.technology, name: 'Counted post' },
      idempotencyKey: 'unused', checkpoint: memoryCheckpoint(), parentReleaseId: root.releaseId,
    });
    const stored = simulator.state.posts.find((item) => String(item.id) === root.releaseId);
    if (stored === undefined) throw new Error('post not stored');
    stored.upvotes = 9;
    stored.downvotes = 2;

    expect(await adapter.analytics?.post(channel, root.releaseId)).toEqual([
      { label: 'Score', value: 7 }, { label: 'Upvotes', value: 9 }, { label: 'Downvotes', value: 2 },
      { label: 'Comments', value: 1 },
    ]);
    expect(await adapter.analytics?.post(channel, reply.releaseId)).toEqual([
      { label: 'Score', value: 1 }, { label: 'Upvotes', value: 1 }, { label: 'Downvotes', value: 0 },
      { label: 'Replies', value: 0 },
    ]);
  });

  it('reads the account\'s post and comment counts from its person details', async () => {
    const counters = await adapter.analytics?.account(channel);
    const posts = simulator.state.posts.filter((item) => item.creatorId === 7).length;
    const comments = simulator.state.comments.filter((item) => item.creatorId === 7).length;
    expect(posts).toBeGreaterThan(0);
    expect(counters).toEqual([{ label: 'Posts', value: posts }, { label: 'Comments', value: comments }]);
  });

  it('lists the account\'s newest posts for linking a post whose release id is missing', async () => {
    const made = await post('Newest post');
    const recent = await adapter.recentContent(channel);
    expect(recent[0]).toEqual({ id: made.releaseId, url: made.releaseURL });
  });
});
