import { readFileSync } from 'node:fs';
import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, newAccount } from './dashboard-client.ts';
import { api } from '../support/fixtures.ts';
import { uploadFile, type UploadedMedia } from '../support/publish-now.ts';
import { makeSmallMedia, type SmallMedia } from '../support/small-media.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { createApiKey } from '../../shared/domain/api-keys/api-keys.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';

/** The media library page over HTTP: what it shows, uploads through it, deletes refused and done. */
describe('dashboard media library', () => {
  const world = useSimulatedStack();
  let client: DashboardClient;
  let organizationId = '';
  let channelId = '';
  let apiKey = '';
  let media: SmallMedia;

  beforeAll(async () => {
    media = makeSmallMedia();
    client = new DashboardClient(world.stack.baseUrl);
    const account = newAccount('media');
    await client.signUp(account);
    const stored = await world.ctx.db.users.findOne({ email: account.email }).lean();
    organizationId = stored?.organizationIds[0]?.toString() ?? '';
    const token = world.simulator.addAccount('media');
    ({ id: channelId } = await addTokenChannel(world.ctx.db, world.ctx.secrets, { allowPrivateNetwork: true }, {
      organizationId, provider: 'mastodon', name: 'Our Mastodon', instanceUrl: world.simulator.origin, token,
    }));
    ({ secret: apiKey } = await createApiKey(world.ctx.db, world.ctx.secrets, organizationId, {
      name: 'tests', scopes: ['posts', 'uploads'], expiresAt: null,
    }, new Date()));
  }, 60_000);
  afterAll(() => {
    media.remove();
  });

  async function scheduleWith(file: UploadedMedia): Promise<string> {
    const answer = await api(world.stack.baseUrl, apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'schedule', date: new Date(Date.now() + 86_400_000).toISOString(),
        posts: [{ integration: { id: channelId }, value: [{ content: 'With a picture', image: [file] }] }],
      },
    });
    expect(answer.status).toBe(201);
    return (answer.body as { postId: string }[])[0]?.postId ?? '';
  }

  const uploadThroughPage = (headers: Record<string, string>) => {
    const form = new FormData();
    form.append('file', new Blob([readFileSync(media.png)]), 'from-the-page.png');
    return fetch(`${world.stack.baseUrl}/media/upload`, {
      method: 'POST', body: form,
      headers: { Cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '), ...headers },
    });
  };

  it('shows each file with its type, size, dimensions and the posts using it', async () => {
    const file = await uploadFile(world.stack.baseUrl, apiKey, media.png);
    const postId = await scheduleWith(file);
    const page = await client.get('/media');
    expect(page.status).toBe(200);
    const tiles = page.html.split('<li class="media-tile">');
    const tile = tiles.find((one) => one.includes(`/media/${file.id}/delete`)) ?? '';
    expect(tile).toContain('image/png');
    expect(tile).toContain('64 × 48');
    expect(tile).toMatch(/image\/png · [1-9]\d{0,5} KB · 64 × 48/);
    expect(tile).toContain(`Scheduled: <a href="/posts/${postId}">post 1</a>`);
    expect(tile).toContain('A scheduled post uses it');
  });

  it('refuses to delete a file a scheduled post uses, saying which post holds it', async () => {
    const file = await uploadFile(world.stack.baseUrl, apiKey, media.png);
    const postId = await scheduleWith(file);
    await client.get('/media');
    const refused = await client.post(`/media/${file.id}/delete`, {});
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('role="alert"');
    expect(refused.html).toContain(postId);
    expect(await world.ctx.db.media.findById(file.id).lean()).not.toBeNull();
  });

  it('deletes an unused file; another organization\'s file and a bad id are 404; no token is 403', async () => {
    const file = await uploadFile(world.stack.baseUrl, apiKey, media.png);
    await client.get('/media');
    expect((await client.post(`/media/${file.id}/delete`, {}, { csrf: null })).status).toBe(403);
    const foreign = await world.ctx.db.media.create({
      organizationId: new Types.ObjectId(), name: 'theirs.png', path: 'https://example.test/theirs.png',
      status: 'ready',
    });
    expect((await client.post(`/media/${foreign._id.toString()}/delete`, {})).status).toBe(404);
    expect(await world.ctx.db.media.findById(foreign._id).lean()).not.toBeNull();
    expect((await client.post('/media/not-an-id/delete', {})).status).toBe(404);
    const deleted = await client.post(`/media/${file.id}/delete`, {});
    expect(deleted.location).toBe('/media');
    expect(await world.ctx.db.media.findById(file.id).lean()).toBeNull();
    expect((await client.get('/media?cursor=nope')).status).toBe(400);
  });

  it('uploads through the page as POST /upload does, with the CSRF token in a header', async () => {
    await client.get('/media');
    expect((await uploadThroughPage({})).status).toBe(403);
    const answer = await uploadThroughPage({ 'X-CSRF-Token': client.csrf });
    expect(answer.status).toBe(201);
    const { id } = await answer.json() as { id: string };
    const stored = await world.ctx.db.media.findById(id).lean();
    expect(stored).toMatchObject({ originalName: 'from-the-page.png', width: 64, height: 48, status: 'ready' });
    const notAFile = await fetch(`${world.stack.baseUrl}/media/upload`, {
      method: 'POST', body: 'hello',
      headers: {
        'Content-Type': 'text/plain', 'X-CSRF-Token': client.csrf,
        Cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
    expect(notAFile.status).toBe(415);
  });
});
