import { Types } from 'mongoose';
import { beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, newAccount } from './dashboard-client.ts';
import { api } from '../support/fixtures.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { createApiKey } from '../../shared/domain/api-keys/api-keys.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { updateThread } from '../../shared/db/equality-queries.ts';

const hourMs = 3_600_000;

/** A whole hour some days ahead: the composer's date field shows it to the minute. */
function hoursAhead(hours: number): Date {
  const date = new Date(Date.now() + hours * hourMs);
  date.setUTCMinutes(0, 0, 0);
  return date;
}

/** `/compose?post=<id>`: editing a draft or scheduled post, duplicating any post, over HTTP (workers off). */
describe('dashboard: the composer opens an existing post', () => {
  const world = useSimulatedStack({ workers: false });
  let client: DashboardClient;
  let organizationId = '';
  let channelId = '';
  let otherChannelId = '';
  let apiKey = '';
  let mediaId = '';

  beforeAll(async () => {
    client = new DashboardClient(world.stack.baseUrl);
    const account = newAccount('composeedit');
    await client.signUp(account);
    const stored = await world.ctx.db.users.findOne({ email: account.email }).lean();
    organizationId = stored?.organizationIds[0]?.toString() ?? '';
    const token = world.simulator.addAccount('composeedit');
    ({ id: channelId } = await addTokenChannel(world.ctx.db, world.ctx.secrets, { allowPrivateNetwork: true }, {
      organizationId, provider: 'mastodon', name: 'Our Mastodon', instanceUrl: world.simulator.origin, token,
    }));
    otherChannelId = (await world.ctx.db.channels.create({
      organizationId: new Types.ObjectId(organizationId), provider: 'bluesky', name: 'Our Bluesky',
      profile: 'ada.test', tokenSealed: world.ctx.secrets.seal('token'), timeZone: 'Europe/Berlin',
    }))._id.toString();
    ({ secret: apiKey } = await createApiKey(world.ctx.db, world.ctx.secrets, organizationId, {
      name: 'tests', scopes: ['posts'], expiresAt: null,
    }, new Date()));
    mediaId = (await world.ctx.db.media.create({
      organizationId: new Types.ObjectId(organizationId), name: 'card.png', originalName: 'card.png',
      path: 'http://127.0.0.1:9/uploads/card.png', mimeType: 'image/png', size: 2048, width: 64, height: 48,
      status: 'ready',
    }))._id.toString();
  });

  /** A post of two parts made through POST /posts: settings, tags and a picture with alt text on its reply. */
  async function created(type: 'schedule' | 'draft', content: string, at: Date): Promise<string> {
    const answer = await api(world.stack.baseUrl, apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type, date: at.toISOString(), tags: [{ value: 'launch', label: 'Launch' }],
        posts: [{
          integration: { id: channelId },
          settings: { visibility: 'unlisted', spoiler_text: 'News' },
          value: [
            { content },
            {
              content: 'The reply', delay: 5,
              image: [{ id: mediaId, path: 'http://127.0.0.1:9/uploads/card.png', alt: 'A card' }],
            },
          ],
        }],
      },
    });
    expect(answer.status).toBe(201);
    return (answer.body as { postId: string }[])[0]?.postId ?? '';
  }

  async function publish(id: string): Promise<void> {
    await world.stack.publishQueue.remove(`post-${id}`);
    await updateThread(world.ctx.db.posts, new Types.ObjectId(id), {}, {
      $set: {
        state: 'PUBLISHED', releaseId: '4242', releaseURL: 'https://mastodon.example/@us/4242',
        publishDate: new Date(Date.now() - hourMs), publishedAt: new Date(Date.now() - hourMs),
      },
    });
  }

  /** The form as the edit page fills it, changed where `fields` say. */
  const editForm = (id: string, fields: Record<string, string | readonly string[]>) => ({
    post: id, part: ['Changed text', 'The reply'], channel: channelId, when: 'at', at: '',
    [`settings[${channelId}][visibility]`]: 'unlisted', [`settings[${channelId}][spoiler_text]`]: 'News',
    [`media[${mediaId}][part]`]: '1', [`media[${mediaId}][alt]`]: 'A card',
    ...fields,
  });

  const roots = () => world.ctx.db.posts.countDocuments({ organizationId, rootPostId: null, deletedAt: null });

  it('fills the composer from a scheduled post: parts, media with alt text, channel, settings, date', async () => {
    const at = hoursAhead(30);
    const id = await created('schedule', 'Original <text>', at);
    const page = await client.get(`/compose?post=${id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Edit post</h1>');
    expect(page.html)
      .toContain(`Editing post <a href="/posts/${id}">“Original &lt;text&gt;”</a>: sending changes it.`);
    expect(page.html).toContain(`<input type="hidden" name="post" value="${id}">`);
    expect(page.html).toContain('aria-describedby="part-problems-0">Original &lt;text&gt;</textarea>');
    expect(page.html).toContain('aria-describedby="part-problems-1">The reply</textarea>');
    expect(page.html).toContain(`<input type="checkbox" name="channel" value="${channelId}" checked>`);
    expect(page.html).not.toContain(`<input type="checkbox" name="channel" value="${otherChannelId}" checked>`);
    expect(page.html).toContain('<option value="unlisted" selected>unlisted</option>');
    expect(page.html).toContain(`name="settings[${channelId}][spoiler_text]" type="text" value="News"`);
    expect(page.html).toContain(`name="media[${mediaId}][part]">\n<option value="">Not attached</option>`
      + '<option value="0">Part 1</option><option value="1" selected>Part 2</option>');
    expect(page.html).toContain(`name="media[${mediaId}][alt]" maxlength="1500" value="A card"`);
    expect(page.html).toContain('<input type="radio" name="when" value="at" checked>');
    // The Mastodon channel's zone is UTC: the stored instant to the minute.
    expect(page.html).toContain(`name="at" type="datetime-local" value="${at.toISOString().slice(0, 16)}"`);
  });

  it('edits a scheduled post: same id, new text and date, its job moved, tags and delays kept', async () => {
    const id = await created('schedule', 'Before the edit', hoursAhead(40));
    await client.get(`/compose?post=${id}`);
    const before = await roots();
    const target = hoursAhead(72);
    // The live check checks the edit as POST /posts/validate would (the post named by value[0].id).
    const checked = await client.post('/compose/check', editForm(id, { at: target.toISOString().slice(0, 16) }));
    expect(checked.html).toContain('Ready to send.');
    const sent = await client.post('/compose', editForm(id, { at: target.toISOString().slice(0, 16) }));
    expect(sent.status).toBe(302);
    expect(sent.location).toBe(`/posts/${id}`);
    expect(await roots()).toBe(before);
    const root = await world.ctx.db.posts.findById(id).lean();
    const tags = [{ value: 'launch', label: 'Launch' }];
    expect(root).toMatchObject({ content: 'Changed text', state: 'QUEUE', tags });
    expect(root?.publishDate.toISOString()).toBe(target.toISOString());
    expect(root?.settings).toEqual({ visibility: 'unlisted', spoiler_text: 'News', __type: 'mastodon' });
    const [reply] = await world.ctx.db.posts.find({ rootPostId: root?._id }).lean();
    expect(reply).toMatchObject({ content: 'The reply', delayMinutes: 5 });
    expect(reply?.media).toEqual([
      { id: mediaId, path: 'http://127.0.0.1:9/uploads/card.png', alt: 'A card', thumbnail: null },
    ]);
    const job = await world.stack.publishQueue.getJob(`post-${id}`);
    const due = (job?.timestamp ?? 0) + (job?.opts.delay ?? 0);
    expect(Math.abs(due - target.getTime())).toBeLessThan(5_000);
    const page = await client.get(`/posts/${id}`);
    expect(page.html).toContain('Changed text');
  });

  it('keeps a draft a draft, or schedules it, as chosen', async () => {
    const id = await created('draft', 'A draft to finish', hoursAhead(50));
    const page = await client.get(`/compose?post=${id}`);
    expect(page.html).toContain('<input type="radio" name="when" value="draft" checked>');
    const oneLine = { part: ['Still a draft'], [`media[${mediaId}][part]`]: '' };
    const kept = await client.post('/compose', editForm(id, { ...oneLine, when: 'draft' }));
    expect(kept.location).toBe(`/posts/${id}`);
    expect(await world.ctx.db.posts.findById(id).lean()).toMatchObject({ content: 'Still a draft', state: 'DRAFT' });
    expect(await world.ctx.db.posts.countDocuments({ rootPostId: new Types.ObjectId(id) })).toBe(0);
    expect(await world.stack.publishQueue.getJob(`post-${id}`)).toBeUndefined();
    const at = hoursAhead(60);
    await client.get(`/compose?post=${id}`);
    const scheduled = await client.post('/compose', editForm(id, {
      ...oneLine, part: ['Now scheduled'], at: at.toISOString().slice(0, 16),
    }));
    expect(scheduled.location).toBe(`/posts/${id}`);
    expect(await world.ctx.db.posts.findById(id).lean()).toMatchObject({ content: 'Now scheduled', state: 'QUEUE' });
    expect(await world.stack.publishQueue.getJob(`post-${id}`)).toBeDefined();
  });

  it('refuses to move an edited post to another channel', async () => {
    const id = await created('schedule', 'Stays on Mastodon', hoursAhead(44));
    await client.get(`/compose?post=${id}`);
    const refused = await client.post('/compose', editForm(id, { channel: [channelId, otherChannelId] }));
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('An edited post stays on its channel');
    expect((await world.ctx.db.posts.findById(id).lean())?.content).toBe('Stays on Mastodon');
  });

  it('offers a published post as a duplicate, refuses its edit with 409, and sends the duplicate', async () => {
    const id = await created('schedule', 'Published once', hoursAhead(20));
    await publish(id);
    const postPage = await client.get(`/posts/${id}`);
    expect(postPage.html).not.toContain(`href="/compose?post=${id}"`);
    expect(postPage.html).toContain(`<a class="button" href="/compose?post=${id}&amp;copy=1">Duplicate</a>`);
    expect(postPage.html).not.toContain('wait for the composer');

    const page = await client.get(`/compose?post=${id}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h1>Duplicate post</h1>');
    expect(page.html)
      .toContain('sending creates a new post;\nthe original stays as it is. It cannot be edited: it is published.');
    expect(page.html).not.toContain('name="post"');
    expect(page.html).toContain(`<input type="checkbox" name="channel" value="${channelId}" checked>`);
    // Its date has passed: the duplicate goes out now unless changed.
    expect(page.html).toContain('<input type="radio" name="when" value="now" checked>');

    const checked = await client.post('/compose/check', editForm(id, { when: 'now' }));
    expect(checked.html)
      .toContain('This post can no longer be edited: it is published. Duplicate it to send it again.');
    const refused = await client.post('/compose', editForm(id, { when: 'now' }));
    expect(refused.status).toBe(409);
    expect(refused.html).toContain('This post can no longer be edited: it is published; nothing was changed.');
    expect(refused.html).toContain('<h1>Duplicate post</h1>');
    expect(refused.html).not.toContain('name="post"');
    expect(refused.html).toContain('>Changed text</textarea>');
    expect((await world.ctx.db.posts.findById(id).lean())?.content).toBe('Published once');
    // A part button (nothing sent) turns the edit into a duplicate too, answered 200 for htmx to swap in.
    const added = await client.post('/compose', editForm(id, { intent: 'add-part' }));
    expect(added.status).toBe(200);
    expect(added.html).toContain('This post can no longer be edited: it is published. What you wrote is kept');
    expect(added.html.match(/<textarea /g)).toHaveLength(3);
    expect(added.html).not.toContain('name="post"');

    const before = await roots();
    const { post: _edited, ...duplicate } = editForm(id, { part: ['Published once', 'The reply'], when: 'now' });
    const sent = await client.post('/compose', duplicate);
    expect(sent.status).toBe(302);
    expect(sent.location).toMatch(/^\/posts\?from=/);
    expect(await roots()).toBe(before + 1);
    const copies = await world.ctx.db.posts.find({ content: 'Published once', rootPostId: null }).lean();
    expect(copies).toHaveLength(2);
    expect(copies.find((copy) => copy._id.toString() !== id)?.state).toBe('QUEUE');
  });

  it('duplicates a scheduled post with copy=1: a new post, the original unchanged', async () => {
    const at = hoursAhead(90);
    const id = await created('schedule', 'Twice', at);
    const postPage = await client.get(`/posts/${id}`);
    expect(postPage.html).toContain(`<a class="button" href="/compose?post=${id}">Edit</a>`);
    expect(postPage.html).toContain(`href="/compose?post=${id}&amp;copy=1">Duplicate</a>`);
    const page = await client.get(`/compose?post=${id}&copy=1`);
    expect(page.html).toContain('<h1>Duplicate post</h1>');
    expect(page.html).not.toContain('name="post"');
    expect(page.html).toContain(`name="at" type="datetime-local" value="${at.toISOString().slice(0, 16)}"`);
    const { post: _edited, ...duplicate } = editForm(id, {
      part: ['Twice', 'The reply'], at: at.toISOString().slice(0, 16),
    });
    expect((await client.post('/compose', duplicate)).status).toBe(302);
    const both = await world.ctx.db.posts.find({ content: 'Twice', rootPostId: null }).lean();
    expect(both).toHaveLength(2);
    expect(both.every((post) => post.publishDate.toISOString() === at.toISOString())).toBe(true);
  });

  it('duplicates a post with its tags and its parts\' delays, which the composer has no field for', async () => {
    const at = hoursAhead(96);
    const id = await created('schedule', 'Copied with its tags', at);
    const page = await client.get(`/compose?post=${id}&copy=1`);
    expect(page.html).toContain(`<input type="hidden" name="copyOf" value="${id}">`);
    const { post: _edited, ...duplicate } = editForm(id, {
      part: ['Copied with its tags', 'The reply'], at: at.toISOString().slice(0, 16), copyOf: id,
    });
    // A part button keeps the source, and names it above the form.
    const added = await client.post('/compose', { ...duplicate, intent: 'add-part' });
    expect(added.html).toContain('<h1>Duplicate post</h1>');
    expect(added.html).toContain(`<input type="hidden" name="copyOf" value="${id}">`);
    expect((await client.post('/compose', duplicate)).status).toBe(302);
    const copy = await world.ctx.db.posts.findOne({
      content: 'Copied with its tags', rootPostId: null, _id: { $ne: new Types.ObjectId(id) },
    }).lean();
    expect(copy?.tags).toEqual([{ value: 'launch', label: 'Launch' }]);
    expect(copy?.publishDate.toISOString()).toBe(at.toISOString());
    const [reply] = await world.ctx.db.posts.find({ rootPostId: copy?._id }).lean();
    expect(reply).toMatchObject({ content: 'The reply', delayMinutes: 5 });
    // The source is unchanged.
    const source = await world.ctx.db.posts.findById(id).lean();
    expect(source).toMatchObject({ content: 'Copied with its tags', state: 'QUEUE' });

    // An edit refused because the post was published meanwhile becomes a duplicate of it, tags and delays kept.
    const published = await created('schedule', 'Published meanwhile', hoursAhead(25));
    await client.get(`/compose?post=${published}`);
    await publish(published);
    const resent = editForm(published, { part: ['Sent again', 'The reply'], when: 'now' });
    const refused = await client.post('/compose', resent);
    expect(refused.status).toBe(409);
    expect(refused.html).toContain(`<input type="hidden" name="copyOf" value="${published}">`);
  });

  it('answers another organization\'s post and an unknown one with 404, a malformed id with 400', async () => {
    const other = await world.ctx.db.posts.create({
      organizationId: new Types.ObjectId(), channelId: new Types.ObjectId(), content: 'Not ours', group: 'g',
      publishDate: new Date(Date.now() + hourMs), state: 'QUEUE', position: 0,
    });
    const otherId = other._id.toString();
    for (const id of [otherId, new Types.ObjectId().toString()]) {
      for (const query of [`post=${id}`, `post=${id}&copy=1`]) {
        const page = await client.get(`/compose?${query}`);
        expect(page.status).toBe(404);
        expect(page.html).not.toContain('Not ours');
      }
    }
    await client.get('/compose');
    const posted = await client.post('/compose', editForm(otherId, {}));
    expect(posted.status).toBe(404);
    expect((await client.post('/compose/check', editForm(otherId, {}))).status).toBe(404);
    expect((await world.ctx.db.posts.findById(otherId).lean())?.content).toBe('Not ours');

    const malformed = await client.get('/compose?post=not-an-id');
    expect(malformed.status).toBe(400);
    expect(malformed.html).toContain('Post: not the id of a post of this site.');
    expect((await client.get('/compose?post=a&post=b')).status).toBe(400);
    expect((await client.get(`/compose?post=${otherId}&copy=yes`)).status).toBe(400);
    await client.get('/compose');
    const badForm = await client.post('/compose', editForm('not-an-id', {}));
    expect(badForm.status).toBe(400);
    expect(badForm.html).toContain('Post: not the id of a post of this site.');
  });
});
