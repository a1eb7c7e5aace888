import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { DashboardClient, newAccount } from './dashboard-client.ts';

/**
 * The composer's video posters, spoken to over HTTP as a browser without JavaScript would (workers
 * off): a select per video sends the chosen library image as the part media's `thumbnail`.
 */
describe('dashboard: choosing a video\'s poster in the composer', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let client: DashboardClient;
  let mastodonId = '';
  let videoId = '';
  const uploads = 'http://127.0.0.1:9/uploads';
  const frame = `${uploads}/clip-poster.jpg`;
  const cover = `${uploads}/cover.png`;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    client = new DashboardClient(stack.baseUrl);
    const owner = newAccount('poster');
    expect((await client.signUp(owner)).status).toBe(302);
    const user = await ctx.db.users.findOne({ email: owner.email }).lean();
    const organizationId = user?.organizationIds[0]?.toString() ?? '';
    ({ id: mastodonId } = await addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, {
      organizationId, provider: 'mastodon', name: 'Our Mastodon', instanceUrl: 'http://127.0.0.1:1234', token: 'token',
    }));
    const organization = new Types.ObjectId(organizationId);
    const file = (name: string, fields: Record<string, unknown>) => ctx.db.media.create({
      organizationId: organization, name, originalName: name, path: `${uploads}/${name}`, status: 'ready',
      size: 4_000, ...fields,
    });
    videoId = (await file('clip.mp4', {
      mimeType: 'video/mp4', width: 320, height: 240, durationSeconds: 3, videoCodec: 'h264', thumbnail: frame,
    }))._id.toHexString();
    await file('cover.png', { mimeType: 'image/png', width: 64, height: 48 });
    await file('cover.webp', { mimeType: 'image/webp', width: 64, height: 48 });
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const form = (poster: string, fields: Record<string, string> = {}) => ({
    part: 'A clip', channel: mastodonId, when: 'now', at: '',
    [`media[${videoId}][part]`]: '0', [`media[${videoId}][alt]`]: '', [`media[${videoId}][poster]`]: poster,
    ...fields,
  });

  it('offers the library\'s JPEG and PNG images as the poster of each video, its own frame first', async () => {
    const page = await client.get('/compose');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<legend>Video posters</legend>');
    expect(page.html).toContain(`<label for="media-${videoId}-poster">Poster of Video: clip.mp4</label>\n`
      + `<select id="media-${videoId}-poster" name="media[${videoId}][poster]">\n`
      + `<option value="">Frame from the video</option><option value="${cover}">Image: cover.png</option></select>`);
    expect(page.html).toContain(`<img src="${frame}" alt=""`);
    expect(page.html).not.toContain(`<option value="${uploads}/cover.webp"`);
  });

  it('sends the chosen image as the video\'s thumbnail, and an edit of the post keeps it', async () => {
    const sent = await client.post('/compose', form(cover));
    expect(sent.status).toBe(302);
    const post = await ctx.db.posts.findOne({ content: 'A clip' }).lean();
    expect(post?.media).toEqual([{ id: videoId, path: `${uploads}/clip.mp4`, alt: null, thumbnail: cover }]);

    const edit = await client.get(`/compose?post=${post?._id.toHexString() ?? ''}`);
    expect(edit.status).toBe(200);
    expect(edit.html).toContain(`<option value="${cover}" selected>Image: cover.png</option>`);
    expect(edit.html).toContain(`<img src="${cover}" alt=""`);
  });

  it('sends no thumbnail for the video\'s own frame', async () => {
    const sent = await client.post('/compose', form('', { part: 'Own frame' }));
    expect(sent.status).toBe(302);
    const post = await ctx.db.posts.findOne({ content: 'Own frame' }).lean();
    expect(post?.media).toEqual([{ id: videoId, path: `${uploads}/clip.mp4`, alt: null, thumbnail: null }]);
  });

  it('shows POST /posts\'s refusal of a poster that is not a library image, and sends nothing', async () => {
    const elsewhere = 'https://cdn.example.com/cover.jpg';
    const checked = await client.post('/compose/check', form(elsewhere));
    expect(checked.html).toContain(`<li>Thumbnail &quot;${elsewhere}&quot; is not an image of your media library`);
    const refused = await client.post('/compose', form(elsewhere, { part: 'Refused poster' }));
    expect(refused.status).toBe(400);
    // Kept chosen in the form, under a name of its own, so the person sees what to change.
    expect(refused.html).toContain(`<option value="${elsewhere}" selected>The image chosen before</option>`);
    expect(await ctx.db.posts.countDocuments({ content: 'Refused poster' })).toBe(0);
  });
});
