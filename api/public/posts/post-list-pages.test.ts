import { describe, expect, it } from 'vitest';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { expectError } from '../../../test/support/channel-test-kit.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';

interface Page { posts: { id: string; publishDate: string }[]; cursor?: string | null }

describe('GET /posts in pages: limit and cursor', () => {
  const world = useSimulatedStack({ workers: false });
  const range = 'startDate=2032-05-01T00:00:00Z&endDate=2032-05-03T00:00:00Z';

  async function organizationWithPosts(): Promise<{ apiKey: string }> {
    const org = await organizationWithMastodon(world.ctx, world.simulator.origin, world.simulator.addAccount('pages'));
    const schedule = async (date: string, contents: string[]) => {
      const answer = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
        method: 'POST',
        body: {
          type: 'schedule', date,
          posts: contents.map((content) => ({ integration: { id: org.channelId }, value: [{ content }] })),
        },
      });
      expect(answer.status).toBe(201);
    };
    // Three posts share an instant, so a page can end in the middle of it.
    await schedule('2032-05-01T09:00:00Z', ['a']);
    await schedule('2032-05-01T12:00:00Z', ['b1', 'b2', 'b3']);
    await schedule('2032-05-02T08:00:00Z', ['c']);
    await schedule('2032-05-02T20:00:00Z', ['d']);
    return org;
  }

  const list = async (apiKey: string, query: string): Promise<Page> => {
    const answer = await api(world.stack.baseUrl, apiKey, `/api/public/v1/posts?${range}&${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as Page;
  };

  it('walks the range a page at a time, in the order of the whole list, each post once', async () => {
    const org = await organizationWithPosts();
    const whole = await list(org.apiKey, '');
    expect(whole.posts).toHaveLength(6);
    expect(whole.cursor).toBeUndefined();

    for (const size of [1, 2, 4]) {
      const seen: string[] = [];
      let page = await list(org.apiKey, `limit=${String(size)}`);
      for (;;) {
        expect(page.posts.length).toBeLessThanOrEqual(size);
        seen.push(...page.posts.map((post) => post.id));
        if (page.cursor === null || page.cursor === undefined) break;
        page = await list(org.apiKey, `limit=${String(size)}&cursor=${page.cursor}`);
      }
      expect(seen, `pages of ${String(size)}`).toEqual(whole.posts.map((post) => post.id));
    }
    // A page that ends exactly at the last post says so: no empty page after it.
    expect((await list(org.apiKey, 'limit=6')).cursor).toBeNull();
  });

  it('refuses a cursor it did not give and a limit out of bounds, with the field named', async () => {
    const org = await organizationWithPosts();
    for (const query of ['cursor=not-a-cursor', `cursor=${Buffer.from('2032|zz').toString('base64url')}`]) {
      const answer = await api(world.stack.baseUrl, org.apiKey, `/api/public/v1/posts?${range}&${query}`);
      expectError(answer, 400, 'validation_failed');
      expect(JSON.stringify(answer.body)).toContain('cursor');
    }
    for (const limit of ['0', '501', 'ten']) {
      const answer = await api(world.stack.baseUrl, org.apiKey, `/api/public/v1/posts?${range}&limit=${limit}`);
      expectError(answer, 400, 'validation_failed');
      expect(JSON.stringify(answer.body)).toContain('limit');
    }
  });
});
