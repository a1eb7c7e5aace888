import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia, type SmallMedia } from '../support/small-media.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { organizationWithCredentialChannel } from '../support/credential-channel.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import {
  startTestWordpress, type SitePost, type TestWordpress, type WordpressUser,
} from '../support/test-wordpress.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';

const createPost = '/wp-json/wp/v2/posts';

/**
 * WordPress through the whole stack (POST /posts, the queue, the publish worker) to a real
 * WordPress: Debian's package on PHP's built-in server with a MariaDB database of this file's
 * own (test/support/wordpress-server.ts), on channels connected through the credentials form's
 * connect flow. Lost answers and throttling come from the fault proxy in front of the site.
 */
describe('publishing to a real WordPress through the whole stack', () => {
  let wp: TestWordpress;
  let proxy: FaultProxy;
  let ctx: TestContext;
  let stack: RunningStack;
  let media: SmallMedia;
  let author: WordpressUser;
  let editor: WordpressUser;
  let organizations = 0;

  beforeAll(async () => {
    wp = await startTestWordpress();
    process.stderr.write(`[wordpress e2e] site started in ${String(wp.startedInMs)} ms\n`);
    proxy = await startFaultProxy(wp.url);
    author = await wp.createUser('author', 'ada');
    editor = await wp.createUser('editor', 'edith');
    await wp.post('/wp/v2/categories', { name: 'Releases' });
    await wp.post('/wp/v2/tags', { name: 'sps' });
    media = makeSmallMedia();
    ctx = await createTestContext({
      // Two attempts: a throttle that spent one would leave none for the send after it.
      PUBLISH_ATTEMPTS: '2',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: '5000',
      PLATFORM_TIMEOUT_MS: '5000',
    });
    stack = await startStack(ctx);
  }, 240_000);

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await proxy.close();
    await wp.close();
    media.remove();
  });

  /** An organization whose user connected the site as the dashboard's form does. */
  async function organization(user: WordpressUser, siteUrl: string = wp.url) {
    organizations += 1;
    const values = { siteUrl, username: user.login, applicationPassword: user.applicationPassword };
    return organizationWithCredentialChannel(ctx, 'wordpress', values, `WordPress org ${String(organizations)}`);
  }

  async function entriesTitled(title: string, restBase = 'posts'): Promise<SitePost[]> {
    return (await wp.entries(restBase)).filter((entry) => entry.title.raw === title);
  }

  it('connects the site and publishes a post with its featured image, terms, excerpt and slug', async () => {
    const org = await organization(author);
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel).toMatchObject({
      accountId: `${String(author.id)}@${wp.url}`, profile: 'ada', instanceUrl: wp.url,
    });

    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await publishNow(stack.baseUrl, org, [
      { content: 'Release **notes** with a [link](https://example.com/notes).\n\n- one\n- two', image: [image] },
    ], {
      title: 'Release 1.0', post_type: 'posts', excerpt: 'What is new', slug: 'release-one',
      categories: ['Releases'], tags: ['sps', 'Launch day'],
    });
    const [part] = await settledParts(ctx.db, postId);
    expect([part?.state, part?.error ?? null]).toEqual(['PUBLISHED', null]);

    const [entry] = await entriesTitled('Release 1.0');
    expect(entry).toMatchObject({
      status: 'publish', slug: 'release-one', author: author.id, excerpt: { raw: 'What is new' },
    });
    expect(part?.releaseId).toBe(String(entry?.id));
    expect(part?.releaseURL).toBe(`${wp.url}/release-one/`);
    expect(entry?.content.raw).toBe('<p>Release <strong>notes</strong> with a '
      + '<a href="https://example.com/notes" rel="noopener noreferrer">link</a>.</p>\n'
      + '<ul>\n<li>one</li>\n<li>two</li>\n</ul>');
    const categories = await wp.get('/wp/v2/categories', { include: (entry?.categories ?? []).join(',') });
    expect((categories as { name: string }[]).map((category) => category.name)).toEqual(['Releases']);
    const tags = await wp.get('/wp/v2/tags', { include: (entry?.tags ?? []).join(','), orderby: 'name' });
    expect((tags as { name: string }[]).map((tag) => tag.name)).toEqual(['Launch day', 'sps']);

    const featured = await wp.get(`/wp/v2/media/${String(entry?.featured_media)}`) as { source_url: string };
    const served = await fetch(featured.source_url);
    expect(Buffer.from(await served.arrayBuffer()).equals(readFileSync(media.png))).toBe(true);
  });

  it('publishes a page, and saves a draft as a draft', async () => {
    const org = await organization(editor);
    const pageId = await publishNow(stack.baseUrl, org, ['About this site'], { title: 'About', post_type: 'pages' });
    const draftId = await publishNow(stack.baseUrl, org, ['Half written'], {
      title: 'Work in progress', post_type: 'posts', status: 'draft',
    });
    const [page] = await settledParts(ctx.db, pageId);
    const [draft] = await settledParts(ctx.db, draftId);
    expect([page?.state, draft?.state]).toEqual(['PUBLISHED', 'PUBLISHED']);

    const [about] = await entriesTitled('About', 'pages');
    expect(about).toMatchObject({ type: 'page', status: 'publish', content: { raw: '<p>About this site</p>' } });
    expect(page?.releaseURL).toBe(`${wp.url}/about/`);
    const [saved] = await entriesTitled('Work in progress');
    expect(saved?.status).toBe('draft');
    expect(draft?.releaseId).toBe(String(saved?.id));
  });

  it('creates one post when WordPress made it and its answer was lost', async () => {
    const org = await organization(author, proxy.url);
    proxy.requests.length = 0;
    proxy.failNext(createPost, { kind: 'lose-response' });
    const postId = await publishNow(stack.baseUrl, org, ['Sent before the connection broke'], {
      title: 'Lost answer', post_type: 'posts',
    });
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('PUBLISHED');

    const made = await entriesTitled('Lost answer');
    expect(made.map((entry) => entry.status)).toEqual(['publish']);
    expect(part?.releaseId).toBe(String(made[0]?.id));
    const creates = proxy.requests.filter((request) => request.method === 'POST' && request.path === createPost);
    expect(creates.map((request) => [request.fault, request.upstreamStatus])).toEqual([['lose-response', 201]]);
    expect(part?.checkpoint).toMatchObject({ sentAt: expect.any(String) as unknown, postId: part?.releaseId });
    const job = await finishedPublishJob(stack.publishQueue, postId);
    // The lost answer spent the first attempt; the second found the draft and published it.
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 2 });
  });

  it('waits for the site\'s Retry-After without spending an attempt', async () => {
    const org = await organization(author, proxy.url);
    proxy.failNext(createPost, {
      kind: 'answer', status: 429, headers: { 'retry-after': '2' },
      body: { code: 'too_many_requests', message: 'Too many requests, slow down.', data: { status: 429 } },
    });
    const before = Date.now();
    const settings = { title: 'Throttled', post_type: 'posts' };
    const postId = await publishNow(stack.baseUrl, org, ['After the wait'], settings);
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('PUBLISHED');
    expect(part?.publishedAt?.getTime()).toBeGreaterThanOrEqual(before + 2_000);
    expect(await entriesTitled('Throttled')).toHaveLength(1);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails with WordPress\'s message and flags the channel when the application password is revoked', async () => {
    const revoked = await wp.createUser('author', 'rosa');
    const org = await organization(revoked);
    await wp.revokeApplicationPasswords(revoked);
    const postId = await publishNow(stack.baseUrl, org, ['Never shown'], { title: 'Revoked', post_type: 'posts' });
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('ERROR');
    expect(part?.error).toMatch(/^Sorry, you are not allowed to create posts as this user\. \(WordPress signed no/);
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
    expect(await entriesTitled('Revoked')).toHaveLength(0);
  });

  it('refuses a wrong application password at connect with WordPress\'s own message', async () => {
    const wrong = { ...author, applicationPassword: 'abcd efgh ijkl mnop qrst uvwx' };
    const error: unknown = await organization(wrong).then(() => null, (caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'connect_refused' });
    expect((error as Error).message).toMatch(/^You are not currently logged in\. \(WordPress signed no one in/);
  });
});
