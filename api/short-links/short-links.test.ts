import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { api, organizationWithMastodon } from '../../test/support/fixtures.ts';
import { settledParts } from '../../test/support/publish-now.ts';
import { useSimulatedStack } from '../../test/support/simulated-stack.ts';
import { waitFor } from '../../test/support/stack.ts';

const created = z.array(z.object({ postId: z.string(), integration: z.string() }));
const detail = z.object({
  content: z.string(),
  value: z.array(z.object({ content: z.string() })),
  shortLinks: z.array(z.object({
    code: z.string(), url: z.string(), target: z.string(), part: z.number(), channelId: z.string(), clicks: z.number(),
  })),
});

/**
 * shortLink: true through the api, the publish worker and the Mastodon simulator: the platform
 * gets SPS's own /l/<code> addresses, which redirect to the original and count each click.
 */
describe('short links', () => {
  const world = useSimulatedStack();
  const v1 = '/api/public/v1';

  async function organization() {
    const token = world.simulator.addAccount(`links${Math.random().toString(36).slice(2, 8)}`);
    return organizationWithMastodon(world.ctx, world.simulator.origin, token);
  }
  async function publish(org: { apiKey: string; channelId: string }, contents: string[], shortLink?: boolean) {
    const answer = await api(world.stack.baseUrl, org.apiKey, `${v1}/posts`, {
      method: 'POST',
      body: {
        type: 'now', ...(shortLink === undefined ? {} : { shortLink }),
        posts: [{ integration: { id: org.channelId }, value: contents.map((content) => ({ content })) }],
      },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return created.parse(answer.body)[0]?.postId ?? '';
  }
  const follow = (path: string, accept = '*/*') =>
    fetch(`${world.stack.baseUrl}${path}`, { redirect: 'manual', headers: { Accept: accept } });
  const pathOf = (url: string) => new URL(url).pathname;

  it('publishes the short address, redirects it to the original and counts each click', async () => {
    const org = await organization();
    const long = 'https://example.com/articles/2026/a-rather-long-address?utm_source=sps&ref=feed';
    const postId = await publish(org, [`Read ${long}. Also https://example.org/b`, `Again: ${long}`], true);

    const post = detail.parse((await api(world.stack.baseUrl, org.apiKey, `${v1}/posts/${postId}`)).body);
    expect(post.shortLinks.map((link) => [link.target, link.part, link.clicks, link.channelId])).toEqual([
      [long, 0, 0, org.channelId], ['https://example.org/b', 0, 0, org.channelId],
    ]);
    const [first, second] = post.shortLinks;
    if (first === undefined || second === undefined) throw new Error('two short links expected');
    expect(first.url).toMatch(/\/l\/[A-Za-z0-9_-]{12}$/);
    // The stored content is what is posted: the sentence's dot kept, the same address one code in both parts.
    expect(post.value.map((part) => part.content)).toEqual([
      `Read ${first.url}. Also ${second.url}`, `Again: ${first.url}`,
    ]);

    const parts = await settledParts(world.ctx.db, postId);
    expect(parts.map((part) => part.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    const texts = world.simulator.statuses.map((status) => status.text);
    expect(texts).toContain(`Read ${first.url}. Also ${second.url}`);
    expect(texts.some((text) => text.includes(long))).toBe(false);

    for (let click = 0; click < 3; click += 1) {
      const redirect = await follow(pathOf(first.url));
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe(long);
      expect(redirect.headers.get('cache-control')).toBe('no-store');
    }
    const counted = await waitFor(async () => {
      const read = detail.parse((await api(world.stack.baseUrl, org.apiKey, `${v1}/posts/${postId}`)).body);
      return read.shortLinks[0]?.clicks === 3 ? read : undefined;
    }, { what: 'three clicks counted' });
    expect(counted.shortLinks.map((link) => link.clicks)).toEqual([3, 0]);

    // Another organization reads neither the post nor its counts.
    const stranger = await organization();
    const foreign = await api(world.stack.baseUrl, stranger.apiKey, `${v1}/posts/${postId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: 'not_found' });
  });

  it('answers an unknown or malformed code with a 404 page', async () => {
    for (const path of ['/l/AAAAAAAAAAAA', '/l/not%20a%20code']) {
      const page = await follow(path, 'text/html');
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('Link not found');
    }
  });

  it('counts the short address against the platform\'s text limit, in a dry run and on creation', async () => {
    const org = await organization();
    // Discord counts every character of a link: 2,000 at most.
    const discord = await world.ctx.db.channels.create({
      organizationId: org.organizationId, provider: 'discord', name: 'Links Discord', accountId: 'discord-links',
      tokenSealed: world.ctx.secrets.seal('token'),
    });
    const content = `${'x'.repeat(1900)} https://example.com/${'a'.repeat(200)}`;
    const body = (shortLink: boolean) => ({
      type: 'schedule', date: new Date(Date.now() + 86_400_000), shortLink,
      posts: [{
        integration: { id: discord._id.toString() }, settings: { channel: '123456789012345678' }, value: [{ content }],
      }],
    });
    const send = (path: string, shortLink: boolean) =>
      api(world.stack.baseUrl, org.apiKey, `${v1}${path}`, { method: 'POST', body: body(shortLink) });
    expect((await send('/posts/validate', false)).body).toMatchObject({ valid: false });
    expect((await send('/posts/validate', true)).body).toMatchObject({ valid: true, problems: [] });
    // A dry run makes codes to measure with and stores none.
    expect(await world.ctx.db.shortLinks.countDocuments({ organizationId: org.organizationId })).toBe(0);
    expect((await send('/posts', false)).status).toBe(400);
    expect(await world.ctx.db.shortLinks.countDocuments({ organizationId: org.organizationId })).toBe(0);
    const stored = await send('/posts', true);
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
    expect(await world.ctx.db.shortLinks.countDocuments({ organizationId: org.organizationId })).toBe(1);
  });

  it('keeps the links of a post created without shortLink', async () => {
    const org = await organization();
    const content = 'Plain https://example.com/kept-as-is';
    const postId = await publish(org, [content], false);
    const post = detail.parse((await api(world.stack.baseUrl, org.apiKey, `${v1}/posts/${postId}`)).body);
    expect(post).toMatchObject({ content, shortLinks: [] });
    await settledParts(world.ctx.db, postId);
    expect(world.simulator.statuses.map((status) => status.text)).toContain(content);
    expect(await world.ctx.db.shortLinks.countDocuments({ postId })).toBe(0);
  });
});
