import { Types } from 'mongoose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { DashboardClient, newAccount } from './dashboard-client.ts';

const longPart = 'word '.repeat(70); // 350 characters: over Bluesky's 300, within Mastodon's 500

/** The composer spoken to over HTTP as a browser without JavaScript (and htmx) would (workers off). */
describe('dashboard: the composer', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let client: DashboardClient;
  let organizationId = '';
  let mastodonId = '';
  let blueskyId = '';

  async function signedUpOrganization(account: DashboardClient): Promise<string> {
    const owner = newAccount('compose');
    expect((await account.signUp(owner)).status).toBe(302);
    const user = await ctx.db.users.findOne({ email: owner.email }).lean();
    return user?.organizationIds[0]?.toString() ?? '';
  }

  async function blueskyChannel(organization: string, name: string): Promise<string> {
    const channel = await ctx.db.channels.create({
      organizationId: new Types.ObjectId(organization), provider: 'bluesky', name, profile: 'ada.test',
      tokenSealed: ctx.secrets.seal('token'), timeZone: 'Europe/Berlin',
      postingSlots: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, time: '10:00' })),
    });
    return channel._id.toString();
  }

  beforeAll(async () => {
    ctx = await createTestContext({
      PUBLIC_API_RATE_LIMIT: '20', PUBLIC_API_VALIDATE_RATE_LIMIT: '40', MEDIA_WAIT_MS: '200',
    });
    stack = await startStack(ctx, { workers: false });
    client = new DashboardClient(stack.baseUrl);
    organizationId = await signedUpOrganization(client);
    ({ id: mastodonId } = await addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, {
      organizationId, provider: 'mastodon', name: 'Our Mastodon', instanceUrl: 'http://127.0.0.1:1234', token: 'token',
      customer: 'Bakery',
    }));
    blueskyId = await blueskyChannel(organizationId, 'Our Bluesky');
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const form = (fields: Record<string, string | readonly string[]>) => ({
    part: ['Hello', 'World'], channel: [mastodonId, blueskyId], when: 'now', at: '', ...fields,
  });

  it('offers the composer in the navigation, channels grouped by customer, htmx served by SPS', async () => {
    const page = await client.get('/compose');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<a href="/compose" aria-current="page">Compose</a>');
    expect(page.html).toMatch(new RegExp('<h3>Bakery</h3>\\s*<ul class="choices"><li class="channel-choice"><label>\\s*'
      + `<input type="checkbox" name="channel" value="${mastodonId}">`));
    expect(page.html.indexOf('Without a customer')).toBeLessThan(page.html.indexOf('Bakery'));
    const script = /<script nonce="([^"]+)" src="(\/assets\/[\w-]+\/htmx\.min\.js)" defer><\/script>/.exec(page.html);
    expect(script).not.toBeNull();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`script-src 'nonce-${script?.[1] ?? ''}'`);
    expect(csp).toContain("connect-src 'self'");
    expect(page.html).toContain('&quot;allowEval&quot;:false');
    const asset = await fetch(`${stack.baseUrl}${script?.[2] ?? ''}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await asset.text()).toContain('htmx');
    expect((await fetch(`${stack.baseUrl}/assets/0000/htmx.min.js`)).status).toBe(404);
  });

  it('counts each part as each platform counts it and names the part a platform refuses', async () => {
    await client.get('/compose');
    const answer = await client.post('/compose/check', form({ part: ['Hello 👋🏽', longPart] }));
    expect(answer.status).toBe(200);
    // Bluesky counts graphemes (the emoji with its skin tone is one), Mastodon too.
    expect(answer.html).toContain('Part 1: 7 / 300 characters · 293 left');
    expect(answer.html).toContain('Part 2: 350 / 300 characters · <span class="over">50 over</span>');
    expect(answer.html).toContain('Part 2: 350 / 500 characters · 150 left');
    expect(answer.html).toContain('<ul class="problems" id="part-problems-1" hx-swap-oob="true"><li>'
      + 'Bluesky channel &quot;Our Bluesky&quot;: has 350 characters; Bluesky allows 300.</li></ul>');
    expect(answer.html).toContain('<ul class="problems" id="part-problems-0" hx-swap-oob="true"></ul>');
    expect(answer.html).toContain('1 problem to fix before sending.');
    // The preview: name, handle, mentions, tags and links marked, all escaped.
    const text = 'Hi @ada@example.social #news https://example.org <b>x</b>';
    const preview = await client.post('/compose/check', form({ part: [text] }));
    expect(preview.html).toContain('<span class="mention">@ada@example.social</span>');
    expect(preview.html).toContain('<span class="tag">#news</span>');
    expect(preview.html).toContain('<span class="link">https://example.org</span>');
    expect(preview.html).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(preview.html).toContain('@ada.test');
  });

  it('generates each platform\'s settings form from its schema; the values become the post\'s settings', async () => {
    const page = await client.get('/compose');
    expect(page.html).toContain('<legend>Mastodon settings for Our Mastodon</legend>');
    const field = (key: string) => `id="setting-${mastodonId}-${key}" name="settings[${mastodonId}][${key}]"`;
    expect(page.html).toContain(`<select ${field('visibility')}`);
    expect(page.html).toContain('<option value="">The platform&#39;s default</option>'
      + '<option value="public">public</option>');
    expect(page.html).toContain(`<input ${field('spoiler_text')} type="text" value="" maxlength="500"`);
    expect(page.html).toContain('Separate several with commas.');
    const refused = await client.post('/compose/check', form({
      [`settings[${blueskyId}][langs]`]: 'en, english',
    }));
    expect(refused.html).toContain(`<ul class="problems" id="setting-${blueskyId}-langs-problems"`
      + ' hx-swap-oob="true"><li>Bluesky channel &quot;Our Bluesky&quot;: '
      + 'must be a language tag such as &quot;en&quot;');
    const sent = await client.post('/compose', form({
      part: ['With settings'], channel: mastodonId,
      [`settings[${mastodonId}][visibility]`]: 'unlisted', [`settings[${mastodonId}][sensitive]`]: 'true',
      [`settings[${mastodonId}][language]`]: '',
    }));
    expect(sent.status).toBe(302);
    const post = await ctx.db.posts.findOne({ content: 'With settings' }).lean();
    expect(post?.settings).toEqual({ visibility: 'unlisted', sensitive: true, __type: 'mastodon' });
  });

  it('attaches library media to a part with alt text, previewed and sent as the post\'s images', async () => {
    const media = await ctx.db.media.create({
      organizationId: new Types.ObjectId(organizationId), name: 'card.png', originalName: 'card.png',
      path: 'http://127.0.0.1:9/uploads/card.png', mimeType: 'image/png', size: 2048, width: 64, height: 48,
      status: 'ready',
    });
    const mediaId = media._id.toString();
    const page = await client.get('/compose');
    expect(page.html).toContain(`<select id="media-${mediaId}-part" name="media[${mediaId}][part]">`);
    expect(page.html).toContain('Image: card.png');
    const attach = { [`media[${mediaId}][part]`]: '1', [`media[${mediaId}][alt]`]: 'A test card' };
    const checked = await client.post('/compose/check', form(attach));
    expect(checked.html).toContain('<img src="http://127.0.0.1:9/uploads/card.png" alt="A test card"');
    // Removing part 1 moves the file with part 2, now part 1.
    const moved = await client.post('/compose', form({ ...attach, intent: 'remove-part-0' }));
    expect(moved.html).toContain(`name="media[${mediaId}][part]">\n<option value="">Not attached</option>`
      + '<option value="0" selected>Part 1</option>');
    const sent = await client.post('/compose', form({
      ...attach, part: ['Card below', 'Here it is'], channel: mastodonId,
    }));
    expect(sent.status).toBe(302);
    const reply = await ctx.db.posts.findOne({ content: 'Here it is' }).lean();
    expect(reply?.media).toEqual([
      { id: mediaId, path: 'http://127.0.0.1:9/uploads/card.png', alt: 'A test card', thumbnail: null },
    ]);
    const gone = await client.post('/compose/check', form({ 'media[0123456789abcdef01234567][part]': '0' }));
    expect(gone.html).toContain('A chosen file is no longer in the media library');
  });

  it('offers the library 24 files at a time: older ones come with "show older files", and can be sent', async () => {
    const owner = new DashboardClient(stack.baseUrl);
    const organization = await signedUpOrganization(owner);
    const channel = await blueskyChannel(organization, 'Library Bluesky');
    const ids: string[] = [];
    for (let index = 0; index < 30; index += 1) {
      const name = `file-${String(index).padStart(2, '0')}.png`;
      ids.push((await ctx.db.media.create({
        organizationId: new Types.ObjectId(organization), name, originalName: name, status: 'ready',
        path: `http://127.0.0.1:9/uploads/${name}`, mimeType: 'image/png', size: 2048, width: 64, height: 48,
      }))._id.toString());
    }
    const id = (index: number): string => ids[index] ?? '';
    const tiles = (markup: string): number => markup.match(/<li class="media-tile">/g)?.length ?? 0;
    const page = await owner.get('/compose');
    expect(tiles(page.html)).toBe(24);
    expect(page.html).toContain('Image: file-29.png');
    expect(page.html).toContain('Image: file-06.png');
    expect(page.html).not.toContain('Image: file-05.png');
    // The cursor is the /media page's: the last file shown.
    expect(page.html).toContain(`<input type="hidden" name="mediaBefore" value="${id(6)}">`);
    expect(page.html).toContain('<button type="submit" name="intent" value="more-media"'
      + ` hx-get="/compose/library?before=${id(6)}&amp;parts=1" hx-target="#media-grid"`);

    // With htmx: the next tiles, the first taking the cursor, and the control gone (out of band) at the end.
    const more = await owner.get(`/compose/library?before=${id(6)}&parts=2`);
    expect(more.status).toBe(200);
    expect(tiles(more.html)).toBe(6);
    expect(more.html).toContain(`<select id="media-${id(5)}-part" name="media[${id(5)}][part]" autofocus>`);
    expect(more.html).toContain(`<select id="media-${id(0)}-part" name="media[${id(0)}][part]">`);
    expect(more.html).toContain('<option value="1">Part 2</option>');
    expect(more.html).toContain('<div id="media-more" hx-swap-oob="true"></div>');
    const skipping = await owner.get(`/compose/library?before=${id(6)}&shown=${id(3)}`);
    expect(tiles(skipping.html)).toBe(5);
    expect(skipping.html).not.toContain(`media[${id(3)}]`);
    expect((await owner.get('/compose/library?before=nope')).status).toBe(400);
    expect((await owner.get(`/compose/library?before=${id(6)}&shown=x`)).status).toBe(400);
    // Another organization's cursor shows none of this library.
    expect((await client.get(`/compose/library?before=${id(29)}`)).html).not.toContain('file-');

    // Without JavaScript: the form posted as typed, the next page added, the cursor spent.
    const shown = Object.fromEntries(ids.slice(6).map((one) => [`media[${one}][part]`, '']));
    const fields = { part: 'From the archive', channel, when: 'draft', at: '', ...shown };
    const posted = await owner.post('/compose', { ...fields, mediaBefore: id(6), intent: 'more-media' });
    expect(posted.status).toBe(200);
    expect(tiles(posted.html)).toBe(30);
    expect(posted.html).toContain('>From the archive</textarea>');
    expect(posted.html).toContain(`name="media[${id(5)}][part]" autofocus>`);
    expect(posted.html).not.toContain('name="mediaBefore"');

    // A file of the second page is attached and sent like any other.
    const picked = { ...fields, ...Object.fromEntries(ids.map((one) => [`media[${one}][part]`, ''])) };
    const checked = await owner.post('/compose/check', { ...picked, [`media[${id(2)}][part]`]: '0' });
    expect(checked.html).not.toContain('no longer in the media library');
    const sent = await owner.post('/compose', { ...picked, [`media[${id(2)}][part]`]: '0' });
    expect(sent.status).toBe(302);
    const draft = await ctx.db.posts.findOne({ content: 'From the archive' }).lean();
    expect(draft?.media.map((media) => media.id)).toEqual([id(2)]);

    // Editing that draft shows its older file from the start; the next page leaves it out.
    const edit = await owner.get(`/compose?post=${draft?._id.toString() ?? ''}`);
    expect(tiles(edit.html)).toBe(25);
    expect(edit.html).toContain(`hx-get="/compose/library?before=${id(6)}&amp;parts=1&amp;shown=${id(2)}"`);
  });

  it('uploads in place with the session and the CSRF token in a header, answering the new tile', async () => {
    await client.get('/compose');
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5E'
      + 'rkJggg==', 'base64');
    const cookie = (): string => [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const upload = (headers: Record<string, string>, body: FormData | string) => fetch(
      `${stack.baseUrl}/compose/upload?parts=2`,
      { method: 'POST', body, redirect: 'manual', headers: { Cookie: cookie(), ...headers } },
    );
    const file = () => {
      const data = new FormData();
      data.append('file', new Blob([png]), 'dot.png');
      return data;
    };
    expect((await upload({}, file())).status).toBe(403);
    const answer = await upload({ 'X-CSRF-Token': client.csrf }, file());
    expect(answer.status).toBe(202); // the media worker is not running in this file
    const tile = await answer.text();
    expect(tile).toContain('Image: dot.png (still being processed)');
    expect(tile).toMatch(/<option value="0" selected>Part 1<\/option><option value="1">Part 2<\/option><\/select>/);
    const stored = await ctx.db.media.findOne({ originalName: 'dot.png' }).lean();
    expect(stored?.organizationId.toString()).toBe(organizationId);
    const notMultipart = await upload({ 'X-CSRF-Token': client.csrf, 'Content-Type': 'text/plain' }, 'hello');
    expect(notMultipart.status).toBe(415);
    expect(await notMultipart.text()).toContain('Send the file as multipart/form-data');
    const text = new FormData();
    text.append('file', new Blob(['just text']), 'notes.txt');
    const refused = await upload({ 'X-CSRF-Token': client.csrf }, text);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
  });

  it('counts against the limit a part\'s media call for, as POST /posts does (TikTok\'s caption)', async () => {
    const tiktok = await ctx.db.channels.create({
      organizationId: new Types.ObjectId(organizationId), provider: 'tiktok', name: 'Our TikTok',
      tokenSealed: ctx.secrets.seal('token'),
    });
    const library = async (name: string, mimeType: string) => (await ctx.db.media.create({
      organizationId: new Types.ObjectId(organizationId), name, path: `http://127.0.0.1:9/uploads/${name}`, mimeType,
      size: 4096, width: 1080, height: 1920, durationSeconds: mimeType.startsWith('video') ? 10 : null, status: 'ready',
    }))._id.toString();
    const photo = await library('photo.jpg', 'image/jpeg');
    const clip = await library('clip.mp4', 'video/mp4');
    await client.get('/compose');
    const check = (media: string) => client.post('/compose/check', form({
      part: ['Caption'], channel: tiktok._id.toString(), [`media[${media}][part]`]: '0',
    }));
    expect((await check(clip)).html).toContain('Part 1: 7 / 2200 UTF-16 code units (emoji count 2) · 2193 left');
    expect((await check(photo)).html).toContain('Part 1: 7 / 4000 UTF-16 code units (emoji count 2) · 3993 left');
  });

  it('adds and removes thread parts without JavaScript, keeping what was typed', async () => {
    await client.get('/compose');
    const added = await client.post('/compose', form({ intent: 'add-part' }));
    expect(added.status).toBe(200);
    expect(added.html.match(/<textarea /g)).toHaveLength(3);
    expect(added.html).toContain('<textarea id="part-2" name="part" rows="5" aria-describedby="part-problems-2"'
      + ' autofocus>');
    const removed = await client.post('/compose', form({ part: ['One', 'Two', 'Three'], intent: 'remove-part-0' }));
    expect(removed.html).toContain('>Two</textarea>');
    expect(removed.html).not.toContain('>One</textarea>');
  });

  it('refuses to send a post a platform refuses, with the problem at its part, storing nothing', async () => {
    await client.get('/compose');
    const refused = await client.post('/compose', form({ part: ['Fine', longPart] }));
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Nothing was sent');
    expect(refused.html).toContain('id="part-problems-1"><li>Bluesky channel &quot;Our Bluesky&quot;: '
      + 'has 350 characters');
    expect(refused.html).toContain(`${longPart}</textarea>`);
    expect(await ctx.db.posts.countDocuments({ content: 'Fine' })).toBe(0);
  });

  it('publishes now through POST /posts\'s code: a post per channel with its thread, then the list', async () => {
    await client.get('/compose');
    const sent = await client.post('/compose', form({ part: ['Thread 1/2', 'Thread 2/2'] }));
    expect(sent.status).toBe(302);
    const today = new Date().toISOString().slice(0, 10);
    expect(sent.location).toBe(`/posts?from=${today}&to=${today}`);
    const roots = await ctx.db.posts.find({ content: 'Thread 1/2', rootPostId: null }).lean();
    expect(roots.map((root) => root.channelId.toString()).sort()).toEqual([mastodonId, blueskyId].sort());
    expect(roots.every((root) => root.state === 'QUEUE')).toBe(true);
    expect(roots.every((root) => root.organizationId.toString() === organizationId)).toBe(true);
    const replies = await ctx.db.posts.find({ rootPostId: roots[0]?._id }).lean();
    expect(replies.map((reply) => reply.content)).toEqual(['Thread 2/2']);
    const list = await client.get(sent.location ?? '');
    expect(list.html.match(/Thread 1\/2/g)).toHaveLength(2);
    // Each post links to its own page.
    for (const root of roots) expect(list.html).toContain(`<a href="/posts/${root._id.toString()}">Thread 1/2</a>`);
  });

  it('reads a date and time in each channel\'s time zone, and refuses one that has passed', async () => {
    await client.get('/compose');
    const sent = await client.post('/compose', form({
      part: ['At ten'], when: 'at', at: '2031-03-05T10:00', channel: [blueskyId, mastodonId],
    }));
    expect(sent.status).toBe(302);
    const dates = await ctx.db.posts.find({ content: 'At ten' }).lean();
    const byChannel = new Map(dates.map((post) => [post.channelId.toString(), post.publishDate.toISOString()]));
    expect(byChannel.get(blueskyId)).toBe('2031-03-05T09:00:00.000Z'); // Europe/Berlin, winter time
    expect(byChannel.get(mastodonId)).toBe('2031-03-05T10:00:00.000Z'); // UTC
    const timing = await client.post('/compose/check', form({ part: ['At ten'], when: 'at', at: '2031-03-05T10:00' }));
    expect(timing.html).toContain('Published on Wed 5 Mar 2031, 10:00 (Europe/Berlin).');
    expect(timing.html).toContain('Published on Wed 5 Mar 2031, 10:00 (UTC).');
    const past = await client.post('/compose', form({ part: ['Too late'], when: 'at', at: '2001-01-01T10:00' }));
    expect(past.status).toBe(400);
    expect(past.html).toContain('1 Jan 2001, 10:00 in Europe/Berlin has passed: choose a later time, or Now');
    const missing = await client.post('/compose', form({ part: ['When?'], when: 'at', at: '' }));
    expect(missing.html).toContain('Choose the date and time to publish at.');
  });

  it('repeats a post every N days from its date, and shortens its links, as POST /posts would', async () => {
    await client.get('/compose');
    const sent = await client.post('/compose', form({
      part: ['Weekly, see https://example.org/menu'], when: 'at', at: '2031-04-07T09:00', channel: mastodonId,
      repeatDays: '7', shortLink: 'on',
    }));
    expect(sent.status).toBe(302);
    const series = { channelId: new Types.ObjectId(mastodonId), seriesId: { $ne: null } };
    const [first, ...rest] = await ctx.db.posts.find(series).sort({ publishDate: 1 }).lean();
    expect(rest).toHaveLength(0); // one occurrence ahead: the next is made when this one publishes
    expect(first?.repeat).toMatchObject({ intervalInDays: 7 });
    expect(first?.publishDate.toISOString()).toBe('2031-04-07T09:00:00.000Z');
    // The link points at SPS's own redirect (BACKEND_URL's origin), counted per post and channel.
    expect(first?.content).toMatch(/^Weekly, see https?:\/\/[^/]+\/l\/[\w-]+$/);
    const link = await ctx.db.shortLinks.findOne({ postId: first?._id }).lean();
    expect(link?.target).toBe('https://example.org/menu');

    const once = await client.post('/compose', form({ part: ['Not dated'], when: 'now', repeatDays: '3' }));
    expect(once.status).toBe(400);
    expect(once.html).toContain('A repeating post starts at a date and time');
    const badDays = await client.post('/compose', form({ part: ['Too often'], when: 'at', repeatDays: '400' }));
    expect(badDays.status).toBe(400);
    expect(await ctx.db.posts.countDocuments({ content: { $in: ['Not dated', 'Too often'] } })).toBe(0);
  });

  it('takes the next queue slot, or keeps a draft without the platform rules', async () => {
    await client.get('/compose');
    const preview = await client.post('/compose/check', form({ part: ['Queued'], when: 'queue', channel: blueskyId }));
    expect(preview.html).toMatch(/Next free queue slot: \w{3} \d{1,2} \w{3} \d{4}, 10:00 \(Europe\/Berlin\)\./);
    const queue = await client.post('/compose', form({ part: ['Queued'], when: 'queue', channel: blueskyId }));
    expect(queue.status).toBe(302);
    const queued = await ctx.db.posts.findOne({ content: 'Queued' }).lean();
    expect(queued?.publishDate.toISOString()).toMatch(/T09:00:00\.000Z$|T08:00:00\.000Z$/); // 10:00 in Berlin
    const draft = await client.post('/compose', form({ part: [longPart], when: 'draft', channel: blueskyId }));
    expect(draft.status).toBe(302);
    expect((await ctx.db.posts.findOne({ content: longPart }).lean())?.state).toBe('DRAFT');
  });

  it('refuses a form without its CSRF token, and answers bad input with a readable 400', async () => {
    await client.get('/compose');
    for (const path of ['/compose', '/compose/check']) {
      const forged = await client.post(path, form({}), { csrf: null });
      expect(forged.status).toBe(403);
      expect(forged.html).toContain('Form expired');
    }
    const badWhen = await client.post('/compose', form({ when: 'yesterday' }));
    expect(badWhen.status).toBe(400);
    expect(badWhen.html).toContain('choose when to publish');
    const badDate = await client.post('/compose', form({ when: 'at', at: 'soon' }));
    expect(badDate.status).toBe(400);
    expect(badDate.html).toContain('a date and time as YYYY-MM-DDTHH:MM');
    const unknown = await client.post('/compose', form({ channel: '0123456789abcdef01234567' }));
    expect(unknown.status).toBe(400);
    expect(unknown.html).toContain('A chosen channel is no longer connected to this organization');
  });

  it('spends the organization\'s budgets: POST /posts\'s to send, POST /posts/validate\'s to check', async () => {
    const other = new DashboardClient(stack.baseUrl);
    const otherOrganization = await signedUpOrganization(other);
    const channel = await blueskyChannel(otherOrganization, 'Budget Bluesky');
    await other.get('/compose');
    const fields = { part: 'Budgeted', channel, when: 'draft', at: '' };
    for (let sent = 0; sent < 20; sent += 1) expect((await other.post('/compose', fields)).status).toBe(302);
    const refused = await other.post('/compose', fields);
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('has used its 20 posts requests of the hour');
    for (let checked = 0; checked < 40; checked += 1) await other.post('/compose/check', fields);
    const paused = await other.post('/compose/check', fields);
    expect(paused.html).toContain('Checks are paused: this organization used its 40 checks of the hour.');
  });
});
