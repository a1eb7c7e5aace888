import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevtoSimulator, type RunningDevtoSimulator } from '../../../test/simulators/devto/devto-simulator.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { jsonBody } from '../../../test/simulators/kit/simulator-server.ts';
import { linkedImage } from '../../../test/support/linked-media.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PublishMedia } from '../kit/platform-adapter.ts';
import { createDevtoAdapter } from './adapter.ts';

const ada = { id: 1234, username: 'ada', name: 'Ada Lovelace', profileImage: 'https://media.dev.to/ada.png' };
const acme = { id: 77, username: 'acme', name: 'Acme Engineering' };

let devto: RunningDevtoSimulator;
let adapter: ReturnType<typeof createDevtoAdapter>;
const channel: ChannelCredentials = { channelId: 'c1', accessToken: 'ada-key', instanceUrl: null };
const grace: ChannelCredentials = { channelId: 'c2', accessToken: 'grace-key', instanceUrl: null };

beforeAll(async () => {
  devto = await startDevtoSimulator([
    { ...ada, apiKeys: ['ada-key'], organizations: [acme] },
    { id: 5, username: 'grace', name: 'Grace', profileImage: 'https://media.dev.to/g.png', apiKeys: ['grace-key'] },
  ]);
  adapter = createDevtoAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(true) }, { apiUrl: devto.apiUrl });
});
afterAll(async () => { await devto.close(); });

interface Part {
  content?: string;
  settings?: Record<string, unknown>;
  media?: PublishMedia[];
  checkpoint?: MemoryCheckpoint;
  on?: ChannelCredentials;
}

function publish(part: Part) {
  return adapter.publish({
    channel: part.on ?? channel,
    content: part.content ?? 'Some **Markdown**.',
    media: part.media ?? [],
    settings: part.settings ?? { title: 'A title' },
    idempotencyKey: 'sps-post-1',
    checkpoint: part.checkpoint ?? memoryCheckpoint(),
  });
}

const sentArticles = () => devto.requestsTo('POST /api/articles');
function lastArticle(): Record<string, unknown> {
  const request = sentArticles().at(-1);
  if (request === undefined) throw new Error('no article was sent');
  return (jsonBody(request) as { article: Record<string, unknown> }).article;
}
const madeTitled = (title: string) => devto.articles.filter((article) => article.title === title);

describe('Dev.to articles', () => {
  it('publishes a Markdown article with the first image as its cover and the others in the text', async () => {
    const checkpoint = memoryCheckpoint();
    const result = await publish({
      content: 'Hello <script>alert(1)</script>**world**\r\n',
      settings: {
        title: 'Shipping SPS', tags: ['typescript', 'node'], series: 'Launch notes',
        canonical_url: 'https://blog.example/shipping', description: 'How we shipped', organization_id: acme.id,
      },
      media: [
        linkedImage('https://sps.example/uploads/cover.png', 'Cover'),
        linkedImage('https://sps.example/uploads/chart.png', 'A chart'),
      ],
      checkpoint,
    });

    const [made] = madeTitled('Shipping SPS');
    expect(result).toEqual({ releaseId: String(made?.id), releaseURL: `https://dev.to/acme/${made?.slug ?? ''}` });
    const request = sentArticles().at(-1);
    expect(request?.headers['api-key']).toBe('ada-key');
    expect(request?.headers.accept).toBe('application/vnd.forem.api-v1+json');
    expect(lastArticle()).toEqual({
      title: 'Shipping SPS',
      body_markdown: 'Hello **world**\n\n![A chart](https://sps.example/uploads/chart.png)',
      published: true,
      tags: ['typescript', 'node'],
      series: 'Launch notes',
      main_image: 'https://sps.example/uploads/cover.png',
      canonical_url: 'https://blog.example/shipping',
      description: 'How we shipped',
      organization_id: acme.id,
    });
    expect(made).toMatchObject({
      published: true, organization: acme, mainImage: 'https://sps.example/uploads/cover.png',
    });
    expect(checkpoint.saves).toEqual([{ sentAt: expect.any(String) as unknown }]);
  });

  it('keeps the cover the settings name, putting every attached image in the text, and saves drafts', async () => {
    await publish({
      settings: { title: 'A draft', main_image: 'https://img.example/c.png', published: false },
      media: [linkedImage('https://sps.example/uploads/one.png')],
    });
    expect(lastArticle()).toMatchObject({
      main_image: 'https://img.example/c.png', published: false,
      body_markdown: 'Some **Markdown**.\n\n![](https://sps.example/uploads/one.png)',
    });
    expect(madeTitled('A draft')[0]).toMatchObject({ published: false, publishedAt: null });
  });

  it('refuses settings the definition does not allow, and video, before calling dev.to', async () => {
    const before = devto.received.length;
    const tags = await platformFailure(publish({ settings: { title: 'T', tags: ['a', 'b', 'c', 'd', 'e'] } }));
    expect(tags).toMatchObject({ kind: 'permanent', message: 'Dev.to settings: tags: Dev.to takes up to 4 tags' });
    const video = await platformFailure(publish({ media: [linkedImage('https://x.example/v.mp4', null, 'video')] }));
    expect(video.message).toBe('Dev.to articles take images only');
    expect(devto.received.length).toBe(before);
  });

  it('shows Forem\'s own sentence for what the article model refuses', async () => {
    await publish({ settings: { title: 'First', canonical_url: 'https://blog.example/once' } });
    const checkpoint = memoryCheckpoint();
    const error = await platformFailure(publish({
      settings: { title: 'Second', canonical_url: 'https://blog.example/once' }, checkpoint,
    }));
    expect(error).toMatchObject({
      kind: 'permanent', httpStatus: 422, message: 'Canonical url has already been taken',
    });
    // Forem answered and made nothing: the mark is cleared, so a retry would not need to look.
    expect(checkpoint.values.sentAt).toBe('');
  });

  it('calls a refused key a disconnected channel', async () => {
    const gone = { ...channel, accessToken: 'revoked-key' };
    const error = await platformFailure(publish({ on: gone }));
    expect(error).toMatchObject({ kind: 'disconnected', httpStatus: 401 });
    expect(error.message).toBe('unauthorized: dev.to did not accept the API key');
  });

  it('waits for Forem\'s article limit to reset, as its Retry-After says', async () => {
    devto.spendArticleLimit(5);
    const error = await platformFailure(publish({ on: grace, settings: { title: 'Throttled' } }));
    expect(error.kind).toBe('retryable');
    expect(error.message).toMatch(/^Rate limit reached, try again in \d+ seconds$/);
    expect(error.retryAfterMs).toBeGreaterThanOrEqual(29_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
    devto.failNext('POST /api/articles', 'rack-throttle');
    const rack = await platformFailure(publish({ settings: { title: 'Rack' } }));
    expect(rack).toMatchObject({ kind: 'retryable', retryAfterMs: 1000, message: 'Retry later\n' });
    expect(madeTitled('Throttled')).toHaveLength(0);
  });
});

describe('Dev.to exactly once', () => {
  it('finds the article an unanswered attempt made instead of sending it again', async () => {
    const checkpoint = memoryCheckpoint();
    devto.failNext('POST /api/articles', 'lose');
    const lost = await platformFailure(publish({ settings: { title: 'Lost once' }, checkpoint }));
    expect(lost.kind).toBe('retryable');
    expect(madeTitled('Lost once')).toHaveLength(1);

    const sends = sentArticles().length;
    const again = await publish({ settings: { title: 'Lost once' }, checkpoint });
    const [made] = madeTitled('Lost once');
    expect(again.releaseId).toBe(String(made?.id));
    expect(sentArticles()).toHaveLength(sends);
    expect(devto.requestsTo('GET /api/articles/me/all').at(-1)?.query.get('per_page')).toBe('100');
  });

  it('sends when the marked attempt made nothing, and tells same-titled articles apart by their text', async () => {
    await publish({ settings: { title: 'Twice titled' }, content: 'an older article' });
    const checkpoint = memoryCheckpoint({ sentAt: new Date().toISOString() });
    const result = await publish({ settings: { title: 'Twice titled' }, content: 'the new one', checkpoint });
    const made = madeTitled('Twice titled');
    expect(made).toHaveLength(2);
    expect(result.releaseId).toBe(String(made[1]?.id));
  });

  it('finds a lost draft too, though drafts carry no date', async () => {
    const checkpoint = memoryCheckpoint();
    devto.failNext('POST /api/articles', 'lose');
    await platformFailure(publish({ settings: { title: 'Lost draft', published: false }, checkpoint }));
    const again = await publish({ settings: { title: 'Lost draft', published: false }, checkpoint });
    expect(madeTitled('Lost draft')).toHaveLength(1);
    expect(again.releaseId).toBe(String(madeTitled('Lost draft')[0]?.id));
  });
});

describe('Dev.to tools, analytics and recent content', () => {
  it('lists tags and the organizations the user published under', async () => {
    const tags = await adapter.tools.tags?.(channel, { page: 1 });
    expect(tags).toContainEqual({ id: 1, name: 'javascript' });
    expect(devto.requestsTo('GET /api/tags').at(-1)?.query.get('page')).toBe('1');
    expect(await adapter.tools.organizations?.(channel, {})).toEqual([acme]);
    expect(await adapter.tools.organizations?.(grace, {})).toEqual([]);
    const bad = await platformFailure(adapter.tools.tags?.(channel, { page: 'first' }) ?? Promise.resolve());
    expect(bad.kind).toBe('permanent');
    expect(bad.message).toMatch(/^tags tool: page: /);
  });

  it('reads an article\'s page views, reactions and comments, and the account\'s sums', async () => {
    const { releaseId } = await publish({ settings: { title: 'Counted' } });
    const article = madeTitled('Counted')[0];
    if (article === undefined) throw new Error('no article');
    Object.assign(article, { pageViews: 120, reactions: 7, comments: 3 });

    expect(await adapter.analytics?.post(channel, releaseId)).toEqual([
      { label: 'Page views', value: 120 }, { label: 'Reactions', value: 7 }, { label: 'Comments', value: 3 },
    ]);
    const published = devto.articles.filter((item) => item.userId === ada.id && item.published);
    const account = await adapter.analytics?.account(channel);
    expect(account).toEqual([
      { label: 'Articles', value: published.length },
      { label: 'Page views', value: published.reduce((sum, item) => sum + item.pageViews, 0) },
      { label: 'Reactions', value: published.reduce((sum, item) => sum + item.reactions, 0) },
      { label: 'Comments', value: published.reduce((sum, item) => sum + item.comments, 0) },
    ]);
    const missing = await platformFailure(adapter.analytics?.post(channel, '999999') ?? Promise.resolve());
    expect(missing.message).toBe('article 999999 is not among the dev.to account\'s articles');
  });

  it('lists the account\'s newest published articles', async () => {
    const recent = await adapter.recentContent(channel);
    const newest = devto.articles.filter((item) => item.userId === ada.id && item.published).at(-1);
    const url = `https://dev.to/${newest?.username ?? ''}/${newest?.slug ?? ''}`;
    expect(recent[0]).toEqual({ id: String(newest?.id), url });
    expect(recent.length).toBe(devto.articles.filter((item) => item.userId === ada.id && item.published).length);
  });
});

describe('Dev.to article tags', () => {
  it('are sent as an array, the shape Forem permits; the simulator refuses the string form', async () => {
    await publish({ settings: { title: 'Tagged as an array', tags: ['typescript', 'node'] } });
    expect(lastArticle().tags).toEqual(['typescript', 'node']);
    const answer = await fetch(`${devto.apiUrl}/articles`, {
      method: 'POST',
      headers: {
        'api-key': channel.accessToken, 'Content-Type': 'application/json',
        Accept: 'application/vnd.forem.api-v1+json',
      },
      body: JSON.stringify({ article: { title: 'Tagged as a string', body_markdown: 'x', tags: 'typescript, node' } }),
    });
    // Forem would drop the string and save the article untagged; the simulator says why instead.
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({ error: 'body.article.tags must be array' });
  });
});
