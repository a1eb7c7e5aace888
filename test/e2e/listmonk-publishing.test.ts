import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startRealListmonk, type RealListmonk } from '../simulators/listmonk/real-listmonk.ts';
import { readMail } from '../simulators/listmonk/smtp-sink.ts';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.ts';
import { finishedPublishJob } from '../support/finished-job.ts';
import { publishNow, settledParts, uploadFile } from '../support/publish-now.ts';
import { makeSmallMedia } from '../support/small-media.ts';
import { startStack, waitFor, type RunningStack } from '../support/stack.ts';
import { organizationWithCredentialChannel } from '../support/credential-channel.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';
import { expectThrottleSpentNoAttempt } from '../support/throttled-publish.ts';

const media = makeSmallMedia();

const campaignPage = z.object({
  data: z.object({
    results: z.array(z.object({
      id: z.number(), name: z.string(), subject: z.string(), status: z.string(), body: z.string(),
      content_type: z.string(), to_send: z.number(),
    })),
  }),
});

/**
 * Listmonk campaigns from POST /posts through the queue and the publish worker to a real listmonk
 * (v1.1.0, the newest the Go module proxy serves: test/simulators/listmonk/listmonk-build.ts),
 * which sends the started campaign through an SMTP sink. The channel is connected through the
 * connect form's flow, to a fault proxy in front of listmonk that can lose an answer after
 * listmonk acted, or answer a 429 as a reverse proxy's limiter would: listmonk has no limiter of
 * its own. What only v4 and later do (API users, their 403s, the media answer with its URL) is
 * covered against the simulator in shared/platforms/listmonk/adapter.test.ts.
 */
describe('publishing to a real listmonk through the whole stack', () => {
  let listmonk: RealListmonk;
  let proxy: FaultProxy;
  let ctx: TestContext;
  let stack: RunningStack;
  let organizations = 0;

  beforeAll(async () => {
    listmonk = await startRealListmonk();
    proxy = await startFaultProxy(listmonk.url);
    ctx = await createTestContext({
      PUBLISH_ATTEMPTS: '3',
      PUBLISH_BACKOFF_MS: '20',
      PUBLISH_MAX_RETRY_AFTER_MS: '3000',
      PLATFORM_TIMEOUT_MS: '5000',
    });
    stack = await startStack(ctx);
  });

  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    await proxy.close();
    await listmonk.close();
    media.remove();
  });

  /** An organization whose user connected the instance with the admin login, as the dashboard's form does. */
  async function organization(): Promise<{ apiKey: string; channelId: string }> {
    organizations += 1;
    const values = { url: proxy.url, apiUser: listmonk.user, token: listmonk.password };
    return organizationWithCredentialChannel(ctx, 'listmonk', values, `Listmonk org ${String(organizations)}`);
  }

  /** The campaigns listmonk holds with this subject, read from its own API. */
  async function campaignsWithSubject(subject: string) {
    const auth = Buffer.from(`${listmonk.user}:${listmonk.password}`).toString('base64');
    const query = new URLSearchParams({ per_page: 'all' });
    const response = await fetch(`${listmonk.url}/api/campaigns?${query.toString()}`, {
      headers: { Authorization: `Basic ${auth}` },
    });
    return campaignPage.parse(await response.json()).data.results.filter((item) => item.subject === subject);
  }

  const creates = () =>
    proxy.requests.filter((request) => request.method === 'POST' && request.path === '/api/campaigns');

  it('sends a campaign with HTML from the Markdown and the image from listmonk\'s media store', async () => {
    const org = await organization();
    const image = await uploadFile(stack.baseUrl, org.apiKey, media.png);
    const postId = await publishNow(stack.baseUrl, org, [
      { content: 'Hello {{ .Subscriber.FirstName }},\n\nOur **autumn** issue.', image: [image] },
    ], { lists: [1], subject: 'Autumn issue' });
    const [part] = await settledParts(ctx.db, postId);
    expect([part?.state, part?.error ?? null]).toEqual(['PUBLISHED', null]);

    const [made] = await campaignsWithSubject('Autumn issue');
    expect(part?.releaseId).toBe(String(made?.id));
    expect(part?.releaseURL).toBe(`${proxy.url}/admin/campaigns/${String(made?.id)}`);
    const imageUrl = /<img src="([^"]+)"/.exec(made?.body ?? '')?.[1] ?? '';
    expect(imageUrl).toMatch(new RegExp(`^${listmonk.url}/uploads/sps-[0-9a-f]{12}-1\\.png$`));
    expect(made?.body).toBe(`<p>Hello {{ .Subscriber.FirstName }},</p>\n<p>Our <strong>autumn</strong> issue.</p>\n`
      + `<p><img src="${imageUrl}" alt="" /></p>`);
    expect(Buffer.from(await (await fetch(imageUrl)).arrayBuffer()).equals(readFileSync(media.png))).toBe(true);

    // listmonk's campaign runner picks running campaigns up every 5 s and mails the list's subscriber.
    const mail = await waitFor(() => listmonk.smtp.messages.find((message) =>
      readMail(message).header('subject') === 'Autumn issue'), { what: 'the campaign\'s email', timeoutMs: 15_000 });
    expect(mail.to).toEqual(['john@example.com']);
    const { html, text } = readMail(mail);
    expect(html).toContain('<p>Hello John,</p>\n<p>Our <strong>autumn</strong> issue.</p>');
    expect(html).toContain(`<img src="${imageUrl}"`);
    expect(text).toContain(`Hello John,\n\nOur autumn issue.\n\n${imageUrl}`);
  });

  it('makes one campaign when listmonk made it and the answer was lost: the retry finds it by its tag', async () => {
    const org = await organization();
    proxy.failNext('/api/campaigns', { kind: 'lose-response' });
    const before = creates().length;
    const postId = await publishNow(stack.baseUrl, org, ['Sent before the connection broke'], {
      lists: [1], subject: 'Lost answer issue',
    });
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('PUBLISHED');

    const made = await campaignsWithSubject('Lost answer issue');
    expect(made.map((item) => [String(item.id), item.status === 'draft'])).toEqual([[part?.releaseId, false]]);
    expect(creates().slice(before).map((request) => request.fault)).toEqual(['lose-response']);
    expect(part?.checkpoint).toMatchObject({
      campaignId: part?.releaseId, campaignSentAt: expect.any(String) as unknown,
    });
    // The lost answer was a failed attempt: the second one found the campaign instead of making another.
    const job = await finishedPublishJob(stack.publishQueue, postId);
    expect(job).toMatchObject({ state: 'completed', attemptsMade: 2 });
  });

  it('waits for a proxy\'s 429 to pass without spending an attempt (listmonk itself never throttles)', async () => {
    const org = await organization();
    proxy.failNext('/api/campaigns', {
      kind: 'answer', status: 429, body: { message: 'Too Many Requests' }, headers: { 'retry-after': '1' },
    });
    const before = creates().length;
    const settings = { lists: [1], subject: 'Throttled issue' };
    const postId = await publishNow(stack.baseUrl, org, ['After the wait'], settings);
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('PUBLISHED');
    expect(await campaignsWithSubject('Throttled issue')).toHaveLength(1);
    expect(creates().slice(before).map((request) => request.fault)).toEqual(['answer', null]);
    await expectThrottleSpentNoAttempt(stack.publishQueue, postId);
  });

  it('fails with listmonk\'s own words when it cannot compile the body, and keeps the channel', async () => {
    const org = await organization();
    const settings = { lists: [1], subject: 'Broken issue' };
    const postId = await publishNow(stack.baseUrl, org, ['Hi {{ Nickname }}'], settings);
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('ERROR');
    expect(part?.error).toBe('listmonk: Error compiling campaign body: error compiling message: template: content:1: '
      + 'function "Nickname" not defined');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(false);
    expect(await campaignsWithSubject('Broken issue')).toHaveLength(0);
    expect((await finishedPublishJob(stack.publishQueue, postId)).attemptsMade).toBe(1);
  });

  // Last: the admin password changes, so every channel connected with the old one is refused.
  it('flags the channel when listmonk no longer accepts its login', async () => {
    const org = await organization();
    await listmonk.changePassword('a-new-admin-password');
    const postId = await publishNow(stack.baseUrl, org, ['After the password changed'], {
      lists: [1], subject: 'Refused issue',
    });
    const [part] = await settledParts(ctx.db, postId);
    expect(part?.state).toBe('ERROR');
    expect(part?.error).toBe('listmonk: Unauthorized');
    const channel = await ctx.db.channels.findOne({ _id: org.channelId }).lean();
    expect(channel?.refreshNeeded).toBe(true);
  });
});
