import { describe, expect, it } from 'vitest';
import { api, organizationWithMastodon } from '../support/fixtures.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { waitFor } from '../support/stack.ts';

/**
 * POST /posts judges a Mastodon post as Mastodon will (shared/platforms/registry/mastodon.ts):
 * what the instance would refuse is a 400 up front, and what passes is published.
 */
describe('POST /posts with Mastodon\'s text rules', () => {
  const world = useSimulatedStack();
  const family = '👨‍👩‍👧';
  const longUrl = `https://example.com/${'x'.repeat(300)}`;

  async function post(value: string, settings: Record<string, unknown> = {}) {
    const token = world.simulator.addAccount(`rules${Math.random().toString(36).slice(2, 8)}`);
    const org = await organizationWithMastodon(world.ctx, world.simulator.origin, token);
    const response = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'now', posts: [{ integration: { id: org.channelId }, value: [{ content: value }], settings }] },
    });
    return { response, org };
  }

  const published = (postId: string) =>
    waitFor(
      async () => {
        const root = await world.ctx.db.posts.findById(postId).lean();
        return root?.state === 'PUBLISHED' || root?.state === 'ERROR' ? root : undefined;
      },
      { what: `post ${postId} to settle` },
    );

  it('answers 400 when the content warning and the text together pass 500 characters, and sends nothing', async () => {
    const before = world.simulator.statusesCreatedRequests().length;
    const { response, org } = await post('a'.repeat(201), { spoiler_text: 'w'.repeat(300) });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: 'validation_failed',
      details: [
        {
          path: 'posts.0.value',
          message:
            'Mastodon channel "Our Mastodon": part 1 has 501 characters with its content warning (spoiler_text); ' +
            'Mastodon allows 500 for both together',
        },
      ],
    });
    expect(await world.ctx.db.posts.countDocuments({ channelId: org.channelId })).toBe(0);
    expect(world.simulator.statusesCreatedRequests().length).toBe(before);
  });

  it('publishes 500 characters of text and content warning together', async () => {
    const { response } = await post('a'.repeat(200), { spoiler_text: 'w'.repeat(300) });
    expect(response.status).toBe(201);
    const root = await published((response.body as { postId: string }[])[0]?.postId ?? '');
    expect(root.state).toBe('PUBLISHED');
    expect(world.simulator.statuses.find((status) => status.id === root.releaseId)?.spoiler_text).toBe(
      'w'.repeat(300),
    );
  });

  it('checks the channel\'s own instance limit, read when it was connected, text and warning included', async () => {
    world.simulator.maxCharacters = 1_000;
    try {
      const token = world.simulator.addAccount('longform');
      const org = await organizationWithMastodon(world.ctx, world.simulator.origin, token);
      // What connecting through OAuth stores for an instance that allows 1,000 (connect-channel.test.ts).
      await world.ctx.db.channels.updateOne({ _id: org.channelId }, { $set: { textLimit: 1_000 } });
      const send = (content: string, settings: Record<string, unknown> = {}) =>
        api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
          method: 'POST',
          body: { type: 'now', posts: [{ integration: { id: org.channelId }, value: [{ content }], settings }] },
        });
      const accepted = await send('a'.repeat(700), { spoiler_text: 'w'.repeat(300) });
      expect(accepted.status).toBe(201);
      const root = await published((accepted.body as { postId: string }[])[0]?.postId ?? '');
      expect(root.state).toBe('PUBLISHED');
      const refused = await send('a'.repeat(1_001));
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain('has 1001 characters; Mastodon allows 1000');
      const withWarning = await send('a'.repeat(800), { spoiler_text: 'w'.repeat(201) });
      expect(JSON.stringify(withWarning.body)).toContain('Mastodon allows 1000 for both together');
    } finally {
      world.simulator.maxCharacters = 500;
    }
  });

  it('counts a long link as 23 characters and emoji sequences as one, as the instance does', async () => {
    for (const text of [`${'a'.repeat(476)} ${longUrl}`, family.repeat(500)]) {
      const { response } = await post(text);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      const root = await published((response.body as { postId: string }[])[0]?.postId ?? '');
      expect(root.state).toBe('PUBLISHED');
      expect(world.simulator.statuses.find((status) => status.id === root.releaseId)?.text).toBe(text);
    }
    const { response } = await post(`${'a'.repeat(477)} ${longUrl}`);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      error: 'validation_failed',
      details: [
        {
          path: 'posts.0.value.0.content',
          message: 'Mastodon channel "Our Mastodon": has 501 characters; Mastodon allows 500',
        },
      ],
    });
  });
});
