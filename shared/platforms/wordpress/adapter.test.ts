import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { startFaultProxy, type FaultProxy } from '../../../test/support/fault-proxy.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, solidPng } from '../../../test/support/sample-media.ts';
import {
  startTestWordpress, type SitePost, type TestWordpress, type WordpressUser,
} from '../../../test/support/test-wordpress.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PublishMedia } from '../kit/platform-adapter.ts';
import { createWordpressAdapter } from './adapter.ts';
import { encodeWordpressCredential } from './credential.ts';

/**
 * The adapter against a real WordPress (Debian's 6.1 on PHP's built-in server, one site for
 * this file: test/support/wordpress-server.ts), with the fault proxy in front of it where an
 * answer must be lost or refused.
 */
let wp: TestWordpress;
let proxy: FaultProxy;
let author: WordpressUser;
let editor: WordpressUser;
let contributor: WordpressUser;
let newsCategory: number;

const newAdapter = () => createWordpressAdapter({ timeoutMs: 5_000, userHosts: connectionPolicyFor(true) });
const adapter = newAdapter();

beforeAll(async () => {
  wp = await startTestWordpress({ canonicalMetaKey: 'rank_math_canonical_url' });
  process.stderr.write(`[wordpress adapter] site started in ${String(wp.startedInMs)} ms\n`);
  proxy = await startFaultProxy(wp.url);
  author = await wp.createUser('author', 'ada');
  editor = await wp.createUser('editor', 'edith');
  contributor = await wp.createUser('contributor', 'charles');
  newsCategory = (await wp.post('/wp/v2/categories', { name: 'News' }) as { id: number }).id;
}, 240_000);

afterAll(async () => {
  await proxy.close();
  await wp.close();
});

function channelOf(user: WordpressUser, site = wp.url, password = user.applicationPassword): ChannelCredentials {
  return {
    channelId: `channel-${user.login}`,
    accessToken: encodeWordpressCredential({ username: user.login, applicationPassword: password }),
    instanceUrl: site,
  };
}

function mediaFile(kind: 'image' | 'video', bytes: Buffer, fileName: string, alt: string | null = null): PublishMedia {
  return {
    kind, mimeType: kind === 'image' ? 'image/png' : 'video/mp4', size: bytes.length, fileName, alt,
    url: `http://127.0.0.1/uploads/${fileName}`,
    open: () => Promise.resolve(Readable.from([bytes])),
  };
}

interface Part {
  channel?: ChannelCredentials;
  content?: string;
  settings: Record<string, unknown>;
  media?: PublishMedia[];
  checkpoint?: MemoryCheckpoint;
  using?: ReturnType<typeof createWordpressAdapter>;
}

function publish(part: Part) {
  return (part.using ?? adapter).publish({
    channel: part.channel ?? channelOf(author),
    content: part.content ?? 'Some text.',
    media: part.media ?? [],
    settings: part.settings,
    idempotencyKey: 'unused',
    checkpoint: part.checkpoint ?? memoryCheckpoint(),
  });
}

const post = (title: string, extra: Record<string, unknown> = {}) => ({ title, post_type: 'posts', ...extra });

async function entriesTitled(title: string, restBase = 'posts'): Promise<SitePost[]> {
  return (await wp.entries(restBase)).filter((entry) => entry.title.raw === title);
}

async function tagNames(ids: readonly number[]): Promise<string[]> {
  const tags = await wp.get('/wp/v2/tags', { include: ids.join(','), _fields: 'name' }) as { name: string }[];
  return tags.map((tag) => tag.name).sort();
}

describe('WordPress adapter: publishing to a real WordPress', () => {
  it('publishes a post: Markdown as HTML, excerpt, slug, category and tags, featured image and media', async () => {
    const existing = (await wp.post('/wp/v2/tags', { name: 'Existing' }) as { id: number }).id;
    const cover = solidPng(8, [0, 128, 255]);
    const checkpoint = memoryCheckpoint();
    const result = await publish({
      content: '# Heading\n\nSome **bold** text and a [link](https://example.com).\n\n<script>alert(1)</script>',
      settings: post('A full post', {
        excerpt: 'The short version', slug: 'a-full-post', categories: ['News'], tags: [existing, 'Brand new tag'],
      }),
      media: [
        mediaFile('image', cover, 'Cover image.png', 'The cover'),
        mediaFile('image', solidPng(4, [255, 0, 0]), 'second.png', 'Second [image]'),
        mediaFile('video', sampleMp4(20_000), 'clip.mp4'),
      ],
      checkpoint,
    });

    const [entry] = await entriesTitled('A full post');
    expect(entry).toMatchObject({
      status: 'publish', slug: 'a-full-post', author: author.id, excerpt: { raw: 'The short version' },
      categories: [newsCategory],
    });
    expect(result).toEqual({ releaseId: String(entry?.id), releaseURL: `${wp.url}/a-full-post/` });
    expect(await tagNames(entry?.tags ?? [])).toEqual(['Brand new tag', 'Existing']);
    const html = entry?.content.raw ?? '';
    expect(html).toContain('<h1>Heading</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<a href="https://example.com" rel="noopener noreferrer">link</a>');
    expect(html).not.toContain('script');

    const featured = await wp.get(`/wp/v2/media/${String(entry?.featured_media)}`, { context: 'edit' }) as {
      alt_text: string; source_url: string; media_details: { file: string };
    };
    expect(featured.alt_text).toBe('The cover');
    expect(readFileSync(path.join(wp.contentDir, 'uploads', featured.media_details.file)).equals(cover)).toBe(true);
    const served = await fetch(featured.source_url);
    expect(Buffer.from(await served.arrayBuffer()).equals(cover)).toBe(true);
    expect(featured.source_url).toMatch(/\/Cover-image\.png$/);
    // The other image and the video are in the library too, shown after the text.
    expect(html).toContain(`<img src="${checkpoint.values.media1Url ?? '-'}" alt="Second image" />`);
    expect(html).toContain(`[video src="${checkpoint.values.media2Url ?? '-'}"]`);
    expect(Object.keys(checkpoint.values).sort()).toEqual([
      'media0Id', 'media0Url', 'media1Id', 'media1Url', 'media2Id', 'media2Url', 'postId', 'sentAt',
    ]);
    expect(checkpoint.values.media0Id).toBe(String(entry?.featured_media));
    // The draft's id was saved before it was published.
    expect(checkpoint.saves.findIndex((save) => 'postId' in save)).toBeGreaterThan(
      checkpoint.saves.findIndex((save) => 'sentAt' in save),
    );
  });

  it('creates a page, and leaves a draft a draft', async () => {
    const page = await publish({ channel: channelOf(editor), settings: { title: 'About us', post_type: 'pages' } });
    const [made] = await entriesTitled('About us', 'pages');
    expect(made).toMatchObject({ type: 'page', status: 'publish', author: editor.id });
    expect(page.releaseId).toBe(String(made?.id));

    const draft = await publish({ settings: post('Not yet', { status: 'draft' }) });
    const [stored] = await entriesTitled('Not yet');
    expect(stored?.status).toBe('draft');
    expect(draft.releaseId).toBe(String(stored?.id));
  });

  it('writes the canonical link to the SEO field the site exposes, and refuses it where there is none', async () => {
    await publish({ settings: post('Canonical post', { canonical_url: 'https://example.com/original' }) });
    const [entry] = await entriesTitled('Canonical post');
    expect(entry?.meta).toMatchObject({ rank_math_canonical_url: 'https://example.com/original' });

    const settings = { title: 'Canonical page', post_type: 'pages', canonical_url: 'https://example.com/page' };
    const error = await platformFailure(publish({ channel: channelOf(editor), settings }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('exposes no canonical link field for pages');
    expect(await entriesTitled('Canonical page', 'pages')).toHaveLength(0);
  });

  it('creates one post when the site made the draft but its answer was lost', async () => {
    const checkpoint = memoryCheckpoint();
    const channel = channelOf(author, proxy.url);
    proxy.failNext('/wp-json/wp/v2/posts', { kind: 'lose-response' });
    const lost = await platformFailure(publish({ channel, settings: post('Lost answer'), checkpoint }));
    expect(lost.kind).toBe('retryable');
    expect(await entriesTitled('Lost answer')).toHaveLength(1);
    expect(checkpoint.values.postId).toBeUndefined();

    const result = await publish({ channel, settings: post('Lost answer'), checkpoint });
    const made = await entriesTitled('Lost answer');
    expect(made.map((entry) => [entry.id, entry.status])).toEqual([[Number(result.releaseId), 'publish']]);
    expect(checkpoint.values.postId).toBe(result.releaseId);
  });

  it('reuses the checkpointed media and draft on a retry instead of sending them again', async () => {
    const first = memoryCheckpoint();
    await publish({
      settings: post('Checkpointed', { status: 'draft' }), checkpoint: first,
      media: [mediaFile('image', solidPng(4, [0, 255, 0]), 'green.png')],
    });
    proxy.requests.length = 0;
    const retry = memoryCheckpoint({ ...first.values });
    const result = await publish({
      channel: channelOf(author, proxy.url), settings: post('Checkpointed'), checkpoint: retry,
      media: [mediaFile('image', solidPng(4, [0, 255, 0]), 'green.png')],
    });
    expect(result.releaseId).toBe(first.values.postId);
    expect(proxy.requests.filter((request) => request.method === 'POST').map((request) => request.path)).toEqual([
      `/wp-json/wp/v2/posts/${first.values.postId ?? '-'}`,
    ]);
    expect((await entriesTitled('Checkpointed')).map((entry) => entry.status)).toEqual(['publish']);
  });

  it('reaches a site without pretty permalinks through ?rest_route=', async () => {
    await wp.setPrettyPermalinks(false);
    try {
      proxy.requests.length = 0;
      const using = newAdapter();
      const result = await publish({
        using, channel: channelOf(author, proxy.url), settings: post('Plain permalinks', { tags: ['Plain tag'] }),
        media: [mediaFile('image', solidPng(4, [9, 9, 9]), 'plain.png')],
      });
      expect(result.releaseURL).toBe(`${wp.url}/?p=${result.releaseId}`);
      const [entry] = await entriesTitled('Plain permalinks');
      expect(entry?.status).toBe('publish');
      expect(entry?.featured_media).toBeGreaterThan(0);
      // One try at /wp-json/ answered an HTML page; every call after it went to ?rest_route=.
      expect(proxy.requests.filter((request) => request.path.startsWith('/wp-json/'))).toHaveLength(1);
      expect(proxy.requests.at(-1)?.path).toBe('/');
    } finally {
      await wp.setPrettyPermalinks(true);
    }
  });
});

describe('WordPress adapter: refusals on WordPress\'s own codes', () => {
  it('flags the channel with WordPress\'s own message for a wrong application password', async () => {
    const error = await platformFailure(publish({
      channel: channelOf(author, wp.url, 'abcd efgh ijkl mnop qrst uvwx'), settings: post('Wrong password'),
    }));
    expect(error.kind).toBe('disconnected');
    expect(error.httpStatus).toBe(401);
    expect(error.message).toMatch(/^Sorry, you are not allowed to create posts as this user\. \(WordPress signed no/);
    expect(await entriesTitled('Wrong password')).toHaveLength(0);
  });

  it('refuses for good what the user may not do, with WordPress\'s message', async () => {
    const page = await platformFailure(publish({ settings: { title: 'Author page', post_type: 'pages' } }));
    expect([page.kind, page.httpStatus, page.message])
      .toEqual(['permanent', 403, 'Sorry, you are not allowed to create posts as this user.']);

    const byContributor = { channel: channelOf(contributor), settings: post('By Charles') };
    const unpublished = await platformFailure(publish(byContributor));
    expect([unpublished.kind, unpublished.httpStatus]).toEqual(['permanent', 403]);
    expect(unpublished.message).toBe('Sorry, you are not allowed to publish posts in this post type.');

    const category = await platformFailure(publish({ settings: post('Nowhere', { categories: ['Missing'] }) }));
    expect(category.kind).toBe('permanent');
    expect(category.message).toContain('no category named "Missing"');

    const settings = await platformFailure(publish({ settings: { post_type: 'posts' } }));
    expect(settings.message).toContain('WordPress settings: title');
  });

  it('refuses a file type the site does not take, with WordPress\'s upload message', async () => {
    const file: PublishMedia = {
      ...mediaFile('image', Buffer.from('MZ not an image'), 'tool.exe'), mimeType: 'application/x-msdownload',
    };
    const error = await platformFailure(publish({ settings: post('With a program'), media: [file] }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Sorry, you are not allowed to upload this file type.');
  });

  it('waits for the site when it throttles or is under maintenance', async () => {
    const channel = channelOf(author, proxy.url);
    proxy.failNext('/wp-json/wp/v2/posts', {
      kind: 'answer', status: 429, headers: { 'retry-after': '7' },
      body: { code: 'too_many_requests', message: 'Too many requests.', data: { status: 429 } },
    });
    const throttled = await platformFailure(publish({ channel, settings: post('Throttled') }));
    expect([throttled.kind, throttled.retryAfterMs, throttled.message])
      .toEqual(['retryable', 7000, 'Too many requests.']);

    proxy.failNext('/wp-json/wp/v2/posts', {
      kind: 'answer', status: 503, headers: { 'retry-after': '600' },
      body: 'Briefly unavailable for scheduled maintenance.',
    });
    const maintenance = await platformFailure(publish({ channel, settings: post('Throttled') }));
    expect([maintenance.kind, maintenance.retryAfterMs]).toEqual(['retryable', 600_000]);
  });

  it('refuses later parts: a WordPress post has no thread', async () => {
    const error = await platformFailure(adapter.comment({
      channel: channelOf(author), content: 'x', media: [], settings: post('x'), idempotencyKey: 'unused',
      checkpoint: memoryCheckpoint(), parentReleaseId: '1',
    }));
    expect(error.kind).toBe('permanent');
  });
});

describe('WordPress adapter: tools, analytics and recent content', () => {
  it('lists post types, categories and statuses', async () => {
    const channel = channelOf(author);
    const types = await adapter.tools.postTypes?.(channel, {}) as { type: string; restBase: string }[];
    expect(types.map((type) => type.restBase)).toEqual(expect.arrayContaining(['posts', 'pages']));
    expect(types.map((type) => type.type)).not.toContain('attachment');
    expect(types.some((type) => type.type.startsWith('wp_'))).toBe(false);
    expect(await adapter.tools.categories?.(channel, {})).toEqual(expect.arrayContaining([
      expect.objectContaining({ id: newsCategory, name: 'News' }),
    ]));
    expect(await adapter.tools.statuses?.(channel, {})).toEqual(expect.arrayContaining([
      { status: 'publish', name: 'Published' }, { status: 'draft', name: 'Draft' },
    ]));
  });

  it('lists tags and creates the missing ones it is given, once', async () => {
    const channel = channelOf(author);
    const made = await adapter.tools.tags?.(channel, { names: 'Tooling, tooling , Fresh tag' }) as { id: number }[];
    const again = await adapter.tools.tags?.(channel, { names: 'Fresh tag' }) as { id: number }[];
    expect(made).toHaveLength(3);
    expect(made[0]?.id).toBe(made[1]?.id);
    expect(again[0]?.id).toBe(made[2]?.id);
    const listed = await adapter.tools.tags?.(channel, {}) as { name: string }[];
    expect(listed.filter((tag) => ['Tooling', 'Fresh tag'].includes(tag.name))).toHaveLength(2);
    const bad = await platformFailure(Promise.resolve().then(() => adapter.tools.tags?.(channel, { names: 42 })));
    expect(bad.kind).toBe('permanent');
  });

  it('reads the user\'s published posts and a post\'s approved comments', async () => {
    const channel = channelOf(author);
    const { releaseId } = await publish({ settings: post('Commented') });
    await wp.post('/wp/v2/comments', { post: Number(releaseId), content: 'Nice post', status: 'approved' });
    await wp.post('/wp/v2/comments', { post: Number(releaseId), content: 'Agreed', status: 'approved' });
    expect(await adapter.analytics?.post(channel, releaseId)).toEqual([{ label: 'Comments', value: 2 }]);
    const published = (await wp.entries()).filter((entry) => entry.author === author.id && entry.status === 'publish');
    expect(await adapter.analytics?.account(channel)).toEqual([{ label: 'Posts', value: published.length }]);

    const recent = await adapter.recentContent(channel);
    // WordPress orders by date to the second: posts made in the same second come in any order.
    expect(recent).toContainEqual({ id: releaseId, url: `${wp.url}/commented/` });
  });
});
