import { describe, expect, it } from 'vitest';
import { publishJobId } from '../../../shared/queue/queues.ts';
import { api, organizationWithMastodon } from '../../../test/support/fixtures.ts';
import { useSimulatedStack } from '../../../test/support/simulated-stack.ts';

// No workers: what is under test is what the route accepts and queues, not publishing.
const world = useSimulatedStack({ workers: false });

describe('PUT /posts/:id/status checks the platform rules before scheduling a draft', () => {
  type Organization = { apiKey: string; channelId: string };
  async function draft(organization: Organization, value: { content: string }[], settings: Record<string, unknown>) {
    const response = await api(world.stack.baseUrl, organization.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'draft', posts: [{ integration: { id: organization.channelId }, value, settings }] },
    });
    expect(response.status).toBe(201);
    return (response.body as { postId: string }[])[0]?.postId ?? '';
  }
  const schedule = (apiKey: string, postId: string) =>
    api(world.stack.baseUrl, apiKey, `/api/public/v1/posts/${postId}/status`, {
      method: 'PUT', body: { status: 'schedule' },
    });
  const channelFor = (name: string) =>
    organizationWithMastodon(world.ctx, world.simulator.origin, world.simulator.addAccount(name));
  const stateOf = async (postId: string) => (await world.ctx.db.posts.findById(postId).lean())?.state;

  it('refuses settings the platform does not take, naming the setting, and leaves the draft unqueued', async () => {
    const organization = await channelFor('settings');
    const postId = await draft(organization, [{ content: 'Who may see this?' }], { visibility: 'everyone' });

    const response = await schedule(organization.apiKey, postId);
    expect(response.status).toBe(400);
    const body = response.body as { error: string; message: string; details: { path: string; message: string }[] };
    expect(body.error).toBe('validation_failed');
    expect(body.message).toMatch(/^the post cannot be scheduled: settings\.visibility: /);
    expect(body.message).toContain('Mastodon channel "Our Mastodon"');
    expect(body.details).toEqual([expect.objectContaining({ path: 'settings.visibility' })]);
    expect(await stateOf(postId)).toBe('DRAFT');
    expect(await world.stack.publishQueue.getJob(publishJobId(postId))).toBeUndefined();
  });

  it('refuses a thread part over the platform\'s text limit, naming the part', async () => {
    const organization = await channelFor('length');
    const postId = await draft(organization, [{ content: 'Short first part' }, { content: 'x'.repeat(501) }], {});

    const response = await schedule(organization.apiKey, postId);
    expect(response.status).toBe(400);
    const body = response.body as { error: string; details: { path: string; message: string }[] };
    expect(body.error).toBe('validation_failed');
    expect(body.details.map((detail) => detail.path)).toEqual([expect.stringMatching(/^value\.1\./)]);
    expect(await stateOf(postId)).toBe('DRAFT');
    expect(await world.stack.publishQueue.getJob(publishJobId(postId))).toBeUndefined();
  });

  it('schedules a draft that keeps the rules, with the settings as the platform parsed them', async () => {
    const organization = await channelFor('valid');
    const postId = await draft(organization, [{ content: 'All good' }], { visibility: 'unlisted' });

    const scheduled = await schedule(organization.apiKey, postId);
    expect(scheduled).toMatchObject({ status: 200, body: { id: postId, state: 'QUEUE' } });
    const stored = await world.ctx.db.posts.findById(postId).lean();
    expect(stored).toMatchObject({ state: 'QUEUE', settings: { visibility: 'unlisted', __type: 'mastodon' } });
    expect(await world.stack.publishQueue.getJob(publishJobId(postId))).toBeDefined();
  });
});
