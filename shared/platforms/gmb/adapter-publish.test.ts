import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  businessPhoto, connectedLocation, startGmbWithOwners,
} from '../../../test/simulators/google/gmb-test-accounts.ts';
import type { GmbSimulator } from '../../../test/simulators/google/gmb-simulator.ts';
import { startPublicMediaHost, type PublicMediaHost } from '../../../test/simulators/instagram/public-media-host.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4 } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput, PublishMedia } from '../kit/platform-adapter.ts';
import { createGmbAdapter } from './adapter.ts';

let sim: GmbSimulator;
let files: PublicMediaHost;
let adapter: PlatformAdapter;
let bakery: ChannelCredentials;

const postsPath = '/v4/accounts/100/locations/a1/localPosts';
const event = {
  title: 'Open day', startDate: '2030-05-01', startTime: '10:00', endDate: '2030-05-02', endTime: '16:30',
};

type TestPart = PublishInput & { checkpoint: MemoryCheckpoint };

function part(content: string, settings: Record<string, unknown>, media: PublishMedia[] = []): TestPart {
  return { channel: bakery, content, media, settings, idempotencyKey: `k-${content}`, checkpoint: memoryCheckpoint() };
}

const postsWith = (summary: string) => sim.store.posts.filter((post) => post.summary === summary);
const requests = (method: string) => sim.received.filter((request) => request.method === method
  && request.path === postsPath);

beforeAll(async () => {
  [sim, files] = await Promise.all([startGmbWithOwners(), startPublicMediaHost()]);
  adapter = createGmbAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, { apiUrl: sim.url });
});
afterAll(async () => { await Promise.all([sim.close(), files.close()]); });
beforeEach(async () => {
  sim.store.now = Date.now;
  bakery = await connectedLocation(sim, 'locations/a1');
});

describe('Google Business Profile local posts', () => {
  it('publishes a STANDARD post: Markdown as plain text, the call-to-action, one photo Google fetched', async () => {
    const bytes = businessPhoto();
    const photo = files.add('bread.png', bytes, { kind: 'image', mimeType: 'image/png' });
    const callToAction = { actionType: 'ORDER', url: 'https://ada.example/order' };
    const input = part('**Fresh** bread at [our shop](https://ada.example)\n\nOpen *daily*.',
      { topicType: 'STANDARD', callToAction }, [photo]);
    const result = await adapter.publish(input);

    const [made] = postsWith('Fresh bread at our shop\n\nOpen daily.');
    expect(made).toMatchObject({
      parent: 'accounts/100/locations/a1', languageCode: 'en-US', topicType: 'STANDARD', callToAction, state: 'LIVE',
    });
    expect(made?.media.map((item) => [item.mediaFormat, item.sourceUrl])).toEqual([['PHOTO', photo.url]]);
    expect(made?.media[0]?.bytes.equals(bytes)).toBe(true);
    expect(result).toEqual({ releaseId: made?.name, releaseURL: made?.searchUrl });
    expect(result.releaseId).toMatch(/^accounts\/100\/locations\/a1\/localPosts\/\d+$/);
  });

  it('marks the attempt in the checkpoint before the create', async () => {
    const input = part('Marked first', { topicType: 'STANDARD' });
    const postsAtSave: number[] = [];
    const save = input.checkpoint.save.bind(input.checkpoint);
    input.checkpoint.save = async (values) => {
      postsAtSave.push(postsWith('Marked first').length);
      await save(values);
    };
    await adapter.publish(input);

    expect(input.checkpoint.saves).toEqual([{ sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown }]);
    expect(postsAtSave).toEqual([0]);
    expect(postsWith('Marked first')).toHaveLength(1);
  });

  it('publishes an EVENT with its title and schedule as Google dates and times, in the language set', async () => {
    await adapter.publish(part('Come and bake with us', { topicType: 'EVENT', event, languageCode: 'de-DE' }));
    const allDay = { title: 'Market', startDate: '2030-06-01', endDate: '2030-06-01' };
    await adapter.publish(part('At the market all day', {
      topicType: 'EVENT', event: allDay, callToAction: { actionType: 'CALL' },
    }));

    expect(postsWith('Come and bake with us')[0]).toMatchObject({
      topicType: 'EVENT', languageCode: 'de-DE',
      event: {
        title: 'Open day',
        schedule: {
          startDate: { year: 2030, month: 5, day: 1 }, startTime: { hours: 10, minutes: 0, seconds: 0, nanos: 0 },
          endDate: { year: 2030, month: 5, day: 2 }, endTime: { hours: 16, minutes: 30, seconds: 0, nanos: 0 },
        },
      },
    });
    const [market] = postsWith('At the market all day');
    expect(market?.event?.schedule).toEqual({
      startDate: { year: 2030, month: 6, day: 1 }, endDate: { year: 2030, month: 6, day: 1 },
    });
    expect(market?.callToAction).toEqual({ actionType: 'CALL' });
  });

  it('publishes an OFFER with its coupon, redeem link and terms', async () => {
    const offer = {
      couponCode: 'SPRING10', redeemOnlineUrl: 'https://ada.example/spring', termsConditions: 'One per guest',
    };
    const settings = { topicType: 'OFFER', event: { ...event, title: 'Spring' }, offer };
    await adapter.publish(part('10% off in spring', settings));

    const [made] = postsWith('10% off in spring');
    expect(made).toMatchObject({ topicType: 'OFFER', offer, event: { title: 'Spring' } });
    expect(made?.callToAction).toBeUndefined();
  });

  it('refuses a video, two photos and settings a topic type lacks before sending anything', async () => {
    const video = files.add('clip.mp4', sampleMp4(), { kind: 'video', mimeType: 'video/mp4' });
    const photos = ['one.png', 'two.png'].map((name) => files.add(name, businessPhoto(), {
      kind: 'image', mimeType: 'image/png',
    }));
    const sent = requests('POST').length;

    const refusals = await Promise.all([
      platformFailure(adapter.publish(part('With a video', { topicType: 'STANDARD' }, [video]))),
      platformFailure(adapter.publish(part('Two photos', { topicType: 'STANDARD' }, photos))),
      platformFailure(adapter.publish(part('An event without dates', { topicType: 'EVENT' }))),
      platformFailure(adapter.publish(part('x'.repeat(1501), { topicType: 'STANDARD' }))),
    ]);
    expect(refusals.map((error) => [error.kind, error.message])).toEqual([
      ['permanent', 'Google Business Profile posts take no video'],
      ['permanent', 'Google Business Profile posts take at most 1 photo, not 2'],
      ['permanent', 'the Google Business Profile settings are not valid: event: a Google Business Profile EVENT '
        + 'post needs event (title and dates)'],
      ['permanent', 'the post\'s text has 1501 characters as plain text; a Google Business Profile post takes 1500'],
    ]);
    expect(requests('POST')).toHaveLength(sent);
  });

  it('fails with the policy rejection Google states on the post, without trying again', async () => {
    sim.store.rejectedWords.add('casino');
    try {
      const error = await platformFailure(adapter.publish(part('Casino night', { topicType: 'STANDARD' })));
      expect(error.kind).toBe('permanent');
      expect(error.message).toMatch(/^Google Business Profile rejected the post \(state REJECTED, accounts\/100\//);
    } finally {
      sim.store.rejectedWords.clear();
    }
  });
});

describe('Google Business Profile local posts exactly once', () => {
  it('takes the post an attempt made when its answer was lost, instead of posting again', async () => {
    const input = part('Lost on the way back', { topicType: 'STANDARD' });
    sim.store.failNext('localPosts.create', { lose: true });
    const lost = await platformFailure(adapter.publish(input));
    expect(lost.kind).toBe('retryable');
    expect(postsWith('Lost on the way back')).toHaveLength(1);

    const creates = requests('POST').length;
    const lists = requests('GET').length;
    const result = await adapter.publish(input);

    const made = postsWith('Lost on the way back');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(made[0]?.name);
    expect(requests('POST')).toHaveLength(creates);
    expect(requests('GET')).toHaveLength(lists + 1);
    expect(requests('GET').at(-1)?.query.get('pageSize')).toBe('100');
  });

  it('sends again when the earlier attempt made nothing; older posts and other types do not count', async () => {
    sim.store.now = () => Date.now() - 10 * 60_000;
    await adapter.publish(part('Daily special', { topicType: 'STANDARD' }));
    sim.store.now = Date.now;
    await adapter.publish(part('Daily special', { topicType: 'EVENT', event }));
    const input = { ...part('Daily special', { topicType: 'STANDARD' }), checkpoint: memoryCheckpoint({
      sentAt: new Date().toISOString(),
    }) };

    const result = await adapter.publish(input);
    const standard = postsWith('Daily special').filter((post) => post.topicType === 'STANDARD');
    expect(standard).toHaveLength(2);
    expect(result.releaseId).toBe(standard[1]?.name);
  });

  it('looks past the first page of newer posts, and stops at the first post older than the mark', async () => {
    const input = part('Under a pile', { topicType: 'STANDARD' });
    sim.store.failNext('localPosts.create', { lose: true });
    await platformFailure(adapter.publish(input));
    for (let index = 0; index < 101; index += 1) {
      const summary = `Newer ${String(index)}`;
      const parent = 'accounts/100/locations/a1';
      sim.store.addPost({ parent, topicType: 'STANDARD', summary, media: [], state: 'LIVE' });
    }
    const lists = requests('GET').length;
    const result = await adapter.publish(input);

    expect(result.releaseId).toBe(postsWith('Under a pile')[0]?.name);
    expect(postsWith('Under a pile')).toHaveLength(1);
    expect(requests('GET').slice(lists).map((request) => request.query.get('pageToken'))).toEqual([null, '100']);
  });

  it('is unconfirmed when the list of posts cannot be read after a lost answer', async () => {
    const input = part('Unreadable list', { topicType: 'STANDARD' });
    sim.store.failNext('localPosts.create', { lose: true });
    await platformFailure(adapter.publish(input));
    sim.store.failNext('localPosts.list', { status: 200, body: { localPosts: [{ summary: 'no name' }] } });
    const error = await platformFailure(adapter.publish(input));

    expect(error.kind).toBe('unconfirmed');
    expect(postsWith('Unreadable list')).toHaveLength(1);
  });
});
