import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startHashnodeSimulator, unauthenticatedMessage, type RunningHashnodeSimulator,
} from '../../../test/simulators/hashnode/hashnode-simulator.ts';
import { proPlanMessage } from '../../../test/simulators/hashnode/hashnode-world.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { jsonBody } from '../../../test/simulators/kit/simulator-server.ts';
import { linkedImage } from '../../../test/support/linked-media.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PublishMedia } from '../kit/platform-adapter.ts';
import { createHashnodeAdapter } from './adapter.ts';
import { publicationPostsQuery } from './hashnode-posts.ts';

const adaId = '65a1f0c2e4b0a1b2c3d4e5f6';
const blog = '64a1b2c3d4e5f60718293a4b';
const free = '64a1b2c3d4e5f60718293a4c';
const team = '64a1b2c3d4e5f60718293a4d';
const seriesId = '64a1b2c3d4e5f60718293a50';

let hashnode: RunningHashnodeSimulator;
let adapter: ReturnType<typeof createHashnodeAdapter>;
const channel: ChannelCredentials = { channelId: 'c1', accessToken: 'ada-token', instanceUrl: null };

beforeAll(async () => {
  hashnode = await startHashnodeSimulator([{
    id: adaId, username: 'ada', name: 'Ada Lovelace', profilePicture: null, email: 'ada@example.com',
    tokens: ['ada-token'], followersCount: 42,
  }], {
    publications: [
      {
        id: blog, title: 'Ada writes', url: 'https://ada.hashnode.dev', pro: true, members: { [adaId]: 'OWNER' },
        series: [{ id: seriesId, name: 'Engines', slug: 'engines' }],
      },
      { id: free, title: 'Free blog', url: 'https://free.hashnode.dev', pro: false, members: { [adaId]: 'OWNER' } },
      { id: team, title: 'Team', url: 'https://team.dev', pro: true, members: { [adaId]: 'CONTRIBUTOR' } },
    ],
  });
  const options = { timeoutMs: 2_000, userHosts: connectionPolicyFor(true) };
  adapter = createHashnodeAdapter(options, { apiUrl: hashnode.url });
});
afterAll(async () => { await hashnode.close(); });

interface Part {
  content?: string;
  settings?: Record<string, unknown>;
  media?: PublishMedia[];
  checkpoint?: MemoryCheckpoint;
  on?: ChannelCredentials;
}

const titled = (title: string, extra: Record<string, unknown> = {}) =>
  ({ title, publicationId: blog, tags: [{ slug: 'javascript' }], ...extra });

function publish(part: Part) {
  return adapter.publish({
    channel: part.on ?? channel,
    content: part.content ?? 'Some **Markdown**.',
    media: part.media ?? [],
    settings: part.settings ?? titled('A title'),
    idempotencyKey: 'sps-post-1',
    checkpoint: part.checkpoint ?? memoryCheckpoint(),
  });
}

const postsTitled = (title: string) => hashnode.world.posts.filter((post) => post.title === title);

describe('Hashnode posts', () => {
  it('publishes with publishPost: tags by slug, the first image as cover, the others in the Markdown', async () => {
    const checkpoint = memoryCheckpoint();
    const result = await publish({
      content: 'Hello <iframe src="https://x.example"></iframe>**world**',
      settings: titled('Engines', {
        subtitle: 'On analytical engines', tags: [{ slug: 'history', name: 'History' }, { slug: 'javascript' }],
        originalArticleURL: 'https://blog.example/engines', seriesId, enableToc: true,
      }),
      media: [
        linkedImage('https://sps.example/u/cover.png', 'Cover'), linkedImage('https://sps.example/u/b.png', 'B'),
      ],
      checkpoint,
    });

    const [post] = postsTitled('Engines');
    expect(result).toEqual({ releaseId: post?.id, releaseURL: `https://ada.hashnode.dev/${post?.slug ?? ''}` });
    const request = hashnode.requestsFor('publishPost').at(-1);
    expect(request?.headers.authorization).toBe('ada-token');
    const body = jsonBody(request ?? hashnode.received[0] ?? ({} as never)) as { query: string; variables: unknown };
    expect(body.query).toContain('mutation PublishPost($input: PublishPostInput!)');
    expect(body.variables).toEqual({
      input: {
        title: 'Engines', publicationId: blog, subtitle: 'On analytical engines',
        tags: [{ slug: 'history', name: 'History' }, { slug: 'javascript' }],
        originalArticleURL: 'https://blog.example/engines', seriesId, enableToc: true,
        contentMarkdown: 'Hello **world**\n\n![B](https://sps.example/u/b.png)',
        coverImage: 'https://sps.example/u/cover.png',
      },
    });
    expect(checkpoint.saves).toEqual([{ sentAt: expect.any(String) as unknown }]);
  });

  it('refuses settings the definition does not allow, and video, before calling Hashnode', async () => {
    const before = hashnode.received.length;
    const noTags = await platformFailure(publish({ settings: titled('T', { tags: [] }) }));
    expect(noTags).toMatchObject({
      kind: 'permanent', message: 'Hashnode settings: tags: Hashnode needs at least 1 tag',
    });
    const video = await platformFailure(publish({ media: [linkedImage('https://x.example/v.mp4', null, 'video')] }));
    expect(video.message).toBe('Hashnode takes images only');
    expect(hashnode.received.length).toBe(before);
  });

  it('reads GraphQL errors sent with HTTP 200 on their code', async () => {
    const notPro = await platformFailure(publish({ settings: titled('Not pro', { publicationId: free }) }));
    expect(notPro).toMatchObject({ kind: 'permanent', httpStatus: 200, message: proPlanMessage });
    const contributor = await platformFailure(publish({ settings: titled('Contributor', { publicationId: team }) }));
    expect(contributor.message).toBe('You do not have permission to publish in this publication.');
    const revoked = await platformFailure(publish({ on: { ...channel, accessToken: 'revoked' } }));
    expect(revoked).toMatchObject({ kind: 'disconnected', message: unauthenticatedMessage });
    expect(postsTitled('Not pro')).toHaveLength(0);
  });

  it('waits as long as a throttling answer says, clearing the send mark', async () => {
    const checkpoint = memoryCheckpoint();
    hashnode.failNext('publishPost', { throttle: 7 });
    const error = await platformFailure(publish({ settings: titled('Throttled'), checkpoint }));
    expect(error).toMatchObject({ kind: 'retryable', httpStatus: 429, retryAfterMs: 7000 });
    expect(error.message).toBe('Too many requests, please try again later.');
    expect(checkpoint.values.sentAt).toBe('');
  });
});

describe('Hashnode exactly once', () => {
  it('finds the post an unanswered publishPost made instead of publishing it again', async () => {
    const checkpoint = memoryCheckpoint();
    hashnode.failNext('publishPost', 'lose');
    expect((await platformFailure(publish({ settings: titled('Lost once'), checkpoint }))).kind).toBe('retryable');
    const sends = hashnode.requestsFor('publishPost').length;

    const again = await publish({ settings: titled('Lost once'), checkpoint });
    expect(postsTitled('Lost once')).toHaveLength(1);
    expect(again.releaseId).toBe(postsTitled('Lost once')[0]?.id);
    expect(hashnode.requestsFor('publishPost')).toHaveLength(sends);
    const lookup = jsonBody(hashnode.requestsFor('publication').at(-1) ?? ({} as never)) as { variables: unknown };
    expect(lookup.variables).toEqual({ id: blog, first: 20 });
  });

  it('publishes when the marked attempt made nothing, and skips same-titled posts with other text', async () => {
    await publish({ settings: titled('Same title'), content: 'first text' });
    await publish({ settings: titled('Same title'), content: 'second text' });
    const checkpoint = memoryCheckpoint({ sentAt: new Date().toISOString() });
    const third = await publish({ settings: titled('Same title'), content: 'third text', checkpoint });
    expect(postsTitled('Same title')).toHaveLength(3);
    expect(third.releaseId).toBe(postsTitled('Same title')[2]?.id);
  });

  it('does not trust a list the edge cache made before the send: it waits for the cache to expire', async () => {
    hashnode.cacheSeconds = 25;
    try {
      // Someone read the publication's newest posts just before this part was sent.
      await fetch(hashnode.url, {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: publicationPostsQuery, variables: { id: blog, first: 20 } }),
      });
      const checkpoint = memoryCheckpoint();
      hashnode.failNext('publishPost', 'lose');
      await platformFailure(publish({ settings: titled('Behind the cache'), checkpoint }));
      hashnode.ageCache(5);

      const deferred = await platformFailure(publish({ settings: titled('Behind the cache'), checkpoint }));
      expect(deferred.kind).toBe('retryable');
      expect(deferred.retryAfterMs).toBe(20_000);
      expect(postsTitled('Behind the cache')).toHaveLength(1);

      hashnode.ageCache(25);
      const found = await publish({ settings: titled('Behind the cache'), checkpoint });
      expect(found.releaseId).toBe(postsTitled('Behind the cache')[0]?.id);
      expect(postsTitled('Behind the cache')).toHaveLength(1);
    } finally {
      hashnode.cacheSeconds = 0;
    }
  });
});

describe('Hashnode tools, analytics and recent content', () => {
  it('lists publications, looks up a tag and lists a publication\'s series', async () => {
    expect(await adapter.tools.publications?.(channel, {})).toEqual([
      { id: blog, title: 'Ada writes', url: 'https://ada.hashnode.dev', isTeam: false },
      { id: free, title: 'Free blog', url: 'https://free.hashnode.dev', isTeam: false },
      { id: team, title: 'Team', url: 'https://team.dev', isTeam: false },
    ]);
    expect(await adapter.tools.tags?.(channel, { slug: 'typescript' })).toEqual([
      { id: 'typescript', name: 'typescript', slug: 'typescript', followersCount: 10, postsCount: 0 },
    ]);
    expect(await adapter.tools.tags?.(channel, { slug: 'no-such-tag' })).toEqual([]);
    expect(await adapter.tools.series?.(channel, { publicationId: blog }))
      .toEqual([{ id: seriesId, name: 'Engines', slug: 'engines' }]);
    const bad = await platformFailure(adapter.tools.series?.(channel, { publicationId: 'nope' }) ?? Promise.resolve());
    expect(bad).toMatchObject({
      kind: 'permanent', message: 'series tool: publicationId: must be a 24-character hex id',
    });
  });

  it('reads a post\'s views, reactions and responses, and the account\'s followers', async () => {
    const { releaseId } = await publish({ settings: titled('Counted') });
    const post = postsTitled('Counted')[0];
    if (post === undefined) throw new Error('no post');
    Object.assign(post, { views: 90, reactionCount: 5, responseCount: 2, replyCount: 1 });
    expect(await adapter.analytics?.post(channel, releaseId)).toEqual([
      { label: 'Views', value: 90 }, { label: 'Reactions', value: 5 },
      { label: 'Responses', value: 2 }, { label: 'Replies', value: 1 },
    ]);
    expect(await adapter.analytics?.account(channel)).toEqual([{ label: 'Followers', value: 42 }]);
    const unknown = 'ffffffffffffffffffffffff';
    const gone = await platformFailure(adapter.analytics?.post(channel, unknown) ?? Promise.resolve());
    expect(gone.message).toBe('Hashnode has no post ffffffffffffffffffffffff');
  });

  it('lists the user\'s newest posts', async () => {
    const recent = await adapter.recentContent(channel);
    const newest = hashnode.world.posts.at(-1);
    expect(recent[0]).toEqual({ id: newest?.id, url: newest?.url });
    expect(recent).toHaveLength(Math.min(20, hashnode.world.posts.length));
  });
});

describe('Hashnode production schema (gql-beta, not the retired gql.hashnode.com one)', () => {
  async function graphql(query: string, variables: Record<string, unknown> = {}) {
    const response = await fetch(hashnode.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: channel.accessToken },
      body: JSON.stringify({ query, variables }),
    });
    const body = await response.json() as { errors?: { message: string; extensions: { code: string } }[] };
    return { status: response.status, error: body.errors?.[0] };
  }
  const publishQuery = 'mutation P($input: PublishPostInput!) { publishPost(input: $input) { post { id } } }';
  const input = (extra: Record<string, unknown>) =>
    ({ ...titled('Old schema'), contentMarkdown: 'Text', ...extra });

  it('refuses User.posts by page and pageSize before running the query, as graphql validation does', async () => {
    const paged = 'query { user(username: "ada") { posts(page: 1, pageSize: 20) { edges { node { id } } } } }';
    const answer = await graphql(paged);
    // graphql-js's own wording, with where in the query (Apollo passes both on).
    expect(answer).toEqual({ status: 400, error: {
      message: 'Unknown argument "page" on field "User.posts".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
      locations: [{ line: 1, column: 39 }],
    } });
  });

  it('refuses the older PublishPostInput shapes with 400 BAD_USER_INPUT, making no post', async () => {
    const coverImageOptions = { coverImageURL: 'https://a.example/c.png' };
    const cover = await graphql(publishQuery, { input: input({ coverImageOptions }) });
    expect(cover.status).toBe(400);
    // graphql-js names the value it refused between "value" and ";", and suggests the field it knows.
    expect(cover.error?.extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expect(cover.error?.message).toMatch(/^Variable "\$input" got invalid value \{.*\}; Field "coverImageOptions" /);
    expect(cover.error?.message)
      .toContain('"coverImageOptions" is not defined by type "PublishPostInput". Did you mean "coverImage"?');
    const toc = await graphql(publishQuery, { input: input({ settings: { enableTableOfContent: true } }) });
    expect(toc.error?.message).toMatch(/Field "settings" is not defined by type "PublishPostInput"/);
    const tagById = await graphql(publishQuery, { input: input({ tags: [{ id: blog }] }) });
    expect(tagById).toMatchObject({ status: 400, error: {
      message: `Variable "$input" got invalid value { id: "${blog}" } at "input.tags[0]"; `
        + 'Field "slug" of required type "String!" was not provided.',
    } });
    expect(postsTitled('Old schema')).toHaveLength(0);
  });

  it('sends what the gql-beta schema declares: coverImage and enableToc on the input, posts by first', async () => {
    await publish({
      settings: titled('New schema', { enableToc: true }),
      media: [linkedImage('https://sps.example/u/cover.png', 'Cover')],
    });
    expect(postsTitled('New schema')[0]?.input).toMatchObject({
      coverImage: 'https://sps.example/u/cover.png', enableToc: true,
    });
    expect(await adapter.analytics?.account(channel)).toEqual([{ label: 'Followers', value: 42 }]);
  });
});
