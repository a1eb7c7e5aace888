import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { multipartParts } from '../../../test/simulators/kit/multipart-form.ts';
import { jsonBody } from '../../../test/simulators/kit/simulator-server.ts';
import {
  startListmonkSimulator, type RunningListmonkSimulator, type SimulatedListmonkApiUser,
} from '../../../test/simulators/listmonk/listmonk-simulator.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PublishMedia } from '../kit/platform-adapter.ts';
import { createListmonkAdapter } from './adapter.ts';
import { encodeListmonkCredential } from './credential.ts';
import { partTag } from './listmonk-content.ts';

const admin: SimulatedListmonkApiUser = {
  id: 3, username: 'sps', name: 'SPS', token: 'c3BzLXRva2Vu', role: { id: 1, name: 'Super Admin', permissions: [] },
};
const drafter: SimulatedListmonkApiUser = {
  id: 4, username: 'drafter', name: 'Drafts only', token: 'ZHJhZnRz',
  role: { id: 2, name: 'Drafter', permissions: ['campaigns:get', 'campaigns:manage', 'lists:get_all'] },
};

const adapter = createListmonkAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(true) });
let listmonk: RunningListmonkSimulator;
let keys = 0;

beforeAll(async () => {
  listmonk = await startListmonkSimulator({ users: [admin, drafter], siteName: 'Acme' });
});
afterAll(async () => {
  await listmonk.close();
});

const channelOf = (user: SimulatedListmonkApiUser, token = user.token): ChannelCredentials => ({
  channelId: `channel-${user.username}`,
  accessToken: encodeListmonkCredential({ apiUser: user.username, token }),
  instanceUrl: listmonk.rootUrl,
});

interface Part {
  content: string;
  settings?: Record<string, unknown>;
  media?: PublishMedia[];
  checkpoint?: MemoryCheckpoint;
  key?: string;
  channel?: ChannelCredentials;
}

function publish(part: Part) {
  keys += 1;
  return adapter.publish({
    channel: part.channel ?? channelOf(admin),
    content: part.content,
    media: part.media ?? [],
    settings: part.settings ?? { lists: [1] },
    idempotencyKey: part.key ?? `part-${String(keys)}`,
    checkpoint: part.checkpoint ?? memoryCheckpoint(),
  });
}

function png(bytes: Buffer, alt: string | null): PublishMedia {
  return {
    kind: 'image', mimeType: 'image/png', size: bytes.length, fileName: 'holiday photo.png', alt,
    url: 'http://127.0.0.1/uploads/holiday.png', open: () => Promise.resolve(Readable.from([bytes])),
  };
}

const campaign = (id: string) => listmonk.state.campaigns.find((item) => String(item.id) === id);
const tagged = (key: string) => listmonk.state.campaigns.filter((item) => item.name.includes(partTag(key)));
/** The last request to a route, which the test expects to have been sent. */
function lastTo(route: string) {
  const request = listmonk.requestsTo(route).at(-1);
  if (request === undefined) throw new Error(`nothing was sent to ${route}`);
  return request;
}
const lastCreate = () => jsonBody(lastTo('POST /api/campaigns'));

describe('listmonk adapter: campaigns', () => {
  it('creates the campaign with HTML from the Markdown and starts it, signed in with Basic auth', async () => {
    const settings = { lists: [1, 2], subject: 'October news', template_id: 2, tags: ['monthly'] };
    const content = 'Hello {{ .Subscriber.FirstName }},\n\nWhat is **new**.';
    const result = await publish({ content, settings, key: 'k-html' });

    const made = campaign(result.releaseId);
    expect(result.releaseURL).toBe(`${listmonk.rootUrl}/admin/campaigns/${result.releaseId}`);
    expect(lastCreate()).toEqual({
      name: `October news [${partTag('k-html')}]`,
      subject: 'October news',
      lists: [1, 2],
      type: 'regular',
      messenger: 'email',
      content_type: 'richtext',
      body: '<p>Hello {{ .Subscriber.FirstName }},</p>\n<p>What is <strong>new</strong>.</p>',
      altbody: 'Hello {{ .Subscriber.FirstName }},\n\nWhat is new.',
      template_id: 2,
      tags: ['monthly'],
    });
    expect(made).toMatchObject({ status: 'running', toSend: 150 });
    const start = lastTo('PUT /api/campaigns/:id/status');
    expect(start.path).toBe(`/api/campaigns/${result.releaseId}/status`);
    expect(jsonBody(start)).toEqual({ status: 'running' });
    expect(start.headers.authorization).toBe(`Basic ${Buffer.from(`sps:${admin.token}`).toString('base64')}`);
  });

  it('takes the subject from the first line when the settings give none', async () => {
    await publish({ content: '# Spring *sale*\n\nTwenty percent off.', key: 'k-subject' });
    expect(lastCreate()).toMatchObject({ subject: 'Spring sale', name: `Spring sale [${partTag('k-subject')}]` });
  });

  it('sends Markdown as written, or plain text, as the content type says', async () => {
    const markdown = { lists: [1], subject: 'md', content_type: 'markdown' };
    await publish({ content: 'Some **bold** text', settings: markdown });
    expect(lastCreate()).toMatchObject({
      content_type: 'markdown', body: 'Some **bold** text', altbody: 'Some bold text',
    });
    await publish({ content: 'Some **bold** text', settings: { lists: [1], subject: 'pl', content_type: 'plain' } });
    const plain = lastCreate();
    expect(plain).toMatchObject({ content_type: 'plain', body: 'Some bold text' });
    expect(plain).not.toHaveProperty('altbody');
  });

  it('uploads images to the media store under the part\'s name, shows them by URL, checkpointed first', async () => {
    const bytes = samplePng();
    const checkpoint = memoryCheckpoint();
    const result = await publish({
      content: 'See below', settings: { lists: [1], subject: 'Photos' }, media: [png(bytes, 'A [red] dot')],
      checkpoint, key: 'k-image',
    });

    const stored = listmonk.state.media.at(-1);
    expect(stored).toMatchObject({ filename: `${partTag('k-image')}-1.png`, contentType: 'image/png' });
    expect(stored?.bytes.equals(bytes)).toBe(true);
    const url = `${listmonk.rootUrl}/uploads/${partTag('k-image')}-1.png`;
    expect(campaign(result.releaseId)?.body).toBe(`<p>See below</p>\n<p><img src="${url}" alt="A [red] dot" /></p>`);
    expect(checkpoint.saves.map((save) => Object.keys(save))).toEqual([
      ['image0Sent'], ['image0Id', 'image0Url'], ['campaignSentAt'], ['campaignId'],
    ]);
    const upload = multipartParts(lastTo('POST /api/media'));
    expect(upload?.map((part) => [part.name, part.fileName, part.contentType])).toEqual([
      ['file', `${partTag('k-image')}-1.png`, 'image/png'],
    ]);
  });
});

describe('listmonk adapter: exactly once', () => {
  it('finds the campaign by its tag when the create answer was lost, and starts that one', async () => {
    const checkpoint = memoryCheckpoint();
    listmonk.failNext('POST /api/campaigns', 'lose');
    const first = await platformFailure(publish({ content: 'Lost once', checkpoint, key: 'k-lost' }));
    expect(first.kind).toBe('retryable');
    expect(tagged('k-lost')).toHaveLength(1);
    expect(tagged('k-lost')[0]?.status).toBe('draft');

    const creates = listmonk.requestsTo('POST /api/campaigns').length;
    const result = await publish({ content: 'Lost once', checkpoint, key: 'k-lost' });
    expect(listmonk.requestsTo('POST /api/campaigns')).toHaveLength(creates);
    expect(tagged('k-lost').map((item) => [String(item.id), item.status])).toEqual([[result.releaseId, 'running']]);
    expect(checkpoint.values.campaignId).toBe(result.releaseId);
  });

  it('does not start a campaign twice when the start answer was lost', async () => {
    const checkpoint = memoryCheckpoint();
    listmonk.failNext('PUT /api/campaigns/:id/status', 'lose');
    await platformFailure(publish({ content: 'Started once', checkpoint, key: 'k-start' }));
    const starts = listmonk.requestsTo('PUT /api/campaigns/:id/status').length;

    const result = await publish({ content: 'Started once', checkpoint, key: 'k-start' });
    expect(listmonk.requestsTo('PUT /api/campaigns/:id/status')).toHaveLength(starts);
    expect(tagged('k-start').map((item) => [String(item.id), item.status])).toEqual([[result.releaseId, 'running']]);
  });

  it('starts a checkpointed draft, and leaves a campaign someone paused alone', async () => {
    const checkpoint = memoryCheckpoint();
    listmonk.failNext('PUT /api/campaigns/:id/status', { status: 503, body: { message: 'maintenance' } });
    const failed = await platformFailure(publish({ content: 'Draft kept', checkpoint, key: 'k-draft' }));
    expect(failed.kind).toBe('retryable');
    const result = await publish({ content: 'Draft kept', checkpoint, key: 'k-draft' });
    expect(campaign(result.releaseId)?.status).toBe('running');

    const made = campaign(result.releaseId);
    if (made !== undefined) made.status = 'paused';
    const starts = listmonk.requestsTo('PUT /api/campaigns/:id/status').length;
    expect(await publish({ content: 'Draft kept', checkpoint, key: 'k-draft' })).toEqual(result);
    expect(listmonk.requestsTo('PUT /api/campaigns/:id/status')).toHaveLength(starts);
    expect(made?.status).toBe('paused');
  });

  it('finds an image whose upload answer was lost instead of storing it twice', async () => {
    const checkpoint = memoryCheckpoint();
    listmonk.failNext('POST /api/media', 'lose');
    const media = [png(samplePng(), null)];
    await platformFailure(publish({ content: 'One image', media, checkpoint, key: 'k-media' }));
    await publish({ content: 'One image', media, checkpoint, key: 'k-media' });
    expect(listmonk.state.media.filter((file) => file.filename.startsWith(partTag('k-media')))).toHaveLength(1);
    expect(tagged('k-media')).toHaveLength(1);
  });
});

describe('listmonk adapter: refusals', () => {
  it('flags the channel when listmonk refuses the token', async () => {
    const error = await platformFailure(publish({ content: 'x', channel: channelOf(admin, 'revoked') }));
    expect(error).toMatchObject({
      kind: 'disconnected', httpStatus: 403, message: 'listmonk: invalid API credentials',
    });
  });

  it('names the permission a role lacks, without flagging the channel', async () => {
    const error = await platformFailure(publish({ content: 'x', channel: channelOf(drafter), key: 'k-perm' }));
    expect(error.kind).toBe('permanent');
    expect(error.message)
      .toBe('listmonk: permission denied: campaigns:send (give the API user\'s role campaigns:send)');
    expect(tagged('k-perm')[0]?.status).toBe('draft');
  });

  it('passes listmonk\'s own words for a body it cannot compile', async () => {
    const error = await platformFailure(publish({ content: 'Hi {{ Nickname }}', key: 'k-tpl' }));
    expect(error).toMatchObject({ kind: 'permanent', httpStatus: 400 });
    expect(error.message)
      .toBe('listmonk: Error compiling campaign body: template: content:1: function "Nickname" not defined');
  });

  it('waits as a proxy\'s 429 says, and retries a server error', async () => {
    const proxyLimit = { status: 429, body: { message: 'slow down' }, headers: { 'retry-after': '7' } };
    listmonk.failNext('POST /api/campaigns', proxyLimit);
    const throttled = await platformFailure(publish({ content: 'x' }));
    expect(throttled).toMatchObject({ kind: 'retryable', retryAfterMs: 7000, message: 'listmonk: slow down' });
    listmonk.failNext('GET /api/lists', { status: 502, body: '<html>Bad Gateway</html>' });
    expect((await platformFailure(adapter.tools.lists?.(channelOf(admin), {}) ?? Promise.resolve())).kind)
      .toBe('retryable');
  });

  it('refuses settings without lists, and a reply', async () => {
    const error = await platformFailure(publish({ content: 'x', settings: { subject: 'No lists' } }));
    expect(error.kind).toBe('permanent');
    expect(error.message).toContain('lists');
    const reply = await platformFailure(adapter.comment({
      channel: channelOf(admin), content: 'x', media: [], settings: {}, idempotencyKey: 'r', parentReleaseId: '1',
      checkpoint: memoryCheckpoint(),
    }));
    expect(reply.kind).toBe('permanent');
  });
});

describe('listmonk adapter: tools, analytics, recent campaigns', () => {
  it('lists the active lists and the campaign templates', async () => {
    const lists = await adapter.tools.lists?.(channelOf(admin), {});
    expect(lists).toEqual([
      { id: 1, name: 'Newsletter', type: 'public', optin: 'single', subscribers: 120, tags: [] },
      { id: 2, name: 'Members', type: 'private', optin: 'double', subscribers: 30, tags: ['paid'] },
    ]);
    const templates = await adapter.tools.templates?.(channelOf(admin), {});
    expect(templates).toEqual([
      { id: 1, name: 'Default campaign template', type: 'campaign', isDefault: true },
      { id: 2, name: 'Plain', type: 'campaign', isDefault: false },
    ]);
    const error = await platformFailure(adapter.tools.templates?.(channelOf(admin), { page: 2 }) ?? Promise.resolve());
    expect(error).toMatchObject({ kind: 'permanent', message: 'templates takes no input (got page)' });
  });

  it('reads the account\'s lists and a campaign\'s counters', async () => {
    expect(await adapter.analytics?.account(channelOf(admin))).toEqual([
      { label: 'Lists', value: 2 }, { label: 'List subscriptions', value: 150 },
    ]);
    const result = await publish({ content: 'Counted', settings: { lists: [2], subject: 'Counted' } });
    const made = campaign(result.releaseId);
    if (made !== undefined) Object.assign(made, { views: 12, clicks: 4, bounces: 1 });
    expect(await adapter.analytics?.post(channelOf(admin), result.releaseId)).toEqual([
      { label: 'Sent', value: 30 }, { label: 'To send', value: 30 }, { label: 'Views', value: 12 },
      { label: 'Clicks', value: 4 }, { label: 'Bounces', value: 1 },
    ]);
  });

  it('lists the newest campaigns for picking a missing release', async () => {
    const recent = await adapter.recentContent(channelOf(admin));
    const newest = listmonk.state.campaigns.at(-1);
    expect(recent[0]).toEqual({
      id: String(newest?.id), url: `${listmonk.rootUrl}/admin/campaigns/${String(newest?.id)}`,
    });
    expect(recent.length).toBeLessThanOrEqual(20);
    expect(listmonk.requestsTo('GET /api/campaigns').at(-1)?.query.get('order')).toBe('desc');
  });

  it('orders campaigns as listmonk does: only a lowercase asc turns the list around', async () => {
    const names = async (order: string) => {
      const response = await fetch(`${listmonk.rootUrl}/api/campaigns?order_by=created_at&order=${order}`, {
        headers: { Authorization: `token ${admin.username}:${admin.token}` },
      });
      const body = await response.json() as { data: { results: { id: number }[] } };
      return body.data.results.map((campaign) => campaign.id);
    };
    const newestFirst = [...listmonk.state.campaigns].map((campaign) => campaign.id).sort((a, b) => b - a);
    expect(await names('asc')).toEqual([...newestFirst].reverse());
    for (const order of ['desc', 'DESC', 'ASC']) expect(await names(order)).toEqual(newestFirst);
  });
});
