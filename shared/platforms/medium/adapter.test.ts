import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { jsonBody } from '../../../test/simulators/kit/simulator-server.ts';
import {
  startMediumSimulator, type RunningMediumSimulator,
} from '../../../test/simulators/medium/medium-simulator.ts';
import { linkedImage } from '../../../test/support/linked-media.ts';
import { memoryCheckpoint, type MemoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PublishMedia } from '../kit/platform-adapter.ts';
import { createMediumAdapter } from './adapter.ts';

const adaId = '5303d74c64f66366f00cb9b2a94f3251bf5';
const graceId = '1f86d4a2b3c4';
let medium: RunningMediumSimulator;
let adapter: ReturnType<typeof createMediumAdapter>;
const channel: ChannelCredentials = { channelId: 'c1', accessToken: 'ada-token', instanceUrl: null };
const grace: ChannelCredentials = { channelId: 'c2', accessToken: 'grace-token', instanceUrl: null };

beforeAll(async () => {
  medium = await startMediumSimulator([
    { id: adaId, username: 'ada', name: 'Ada', imageUrl: 'https://images.medium.com/ada.png', tokens: ['ada-token'] },
    {
      id: graceId, username: 'grace', name: 'Grace', imageUrl: 'https://images.medium.com/g.png',
      tokens: ['grace-token'],
    },
  ], [
    { id: 'b45573563f5a', name: 'Engines Weekly', url: 'https://medium.com/engines', roles: { [adaId]: 'editor' } },
    { id: 'c99', name: 'Guest Desk', url: 'https://medium.com/guest', roles: { [adaId]: 'writer' } },
  ]);
  const options = { timeoutMs: 2_000, userHosts: connectionPolicyFor(true) };
  adapter = createMediumAdapter(options, { apiUrl: medium.apiUrl });
});
afterAll(async () => { await medium.close(); });

interface Part {
  content?: string;
  settings?: Record<string, unknown>;
  media?: PublishMedia[];
  checkpoint?: MemoryCheckpoint;
  on?: ChannelCredentials;
}

function publish(part: Part) {
  return adapter.publish({
    channel: part.on ?? channel,
    content: part.content ?? '# A title\n\nSome **Markdown**.',
    media: part.media ?? [],
    settings: part.settings ?? { title: 'A title' },
    idempotencyKey: 'sps-post-1',
    checkpoint: part.checkpoint ?? memoryCheckpoint(),
  });
}

const storiesTitled = (title: string) => medium.stories.filter((story) => story.title === title);

describe('Medium stories', () => {
  it('publishes a Markdown story on the user\'s profile with its images in the text', async () => {
    const checkpoint = memoryCheckpoint();
    const result = await publish({
      settings: {
        title: 'Engines', tags: ['history', 'computing'], canonicalUrl: 'https://blog.example/engines',
        publishStatus: 'unlisted', license: 'cc-40-by', notifyFollowers: false,
      },
      media: [linkedImage('https://sps.example/u/engine.png', 'The engine')],
      checkpoint,
    });

    const [story] = storiesTitled('Engines');
    expect(result).toEqual({ releaseId: story?.id, releaseURL: story?.url });
    const request = medium.requestsTo(`POST /v1/users/${adaId}/posts`).at(-1);
    expect(request?.headers.authorization).toBe('Bearer ada-token');
    expect(jsonBody(request ?? medium.received[0] ?? ({} as never))).toEqual({
      title: 'Engines', tags: ['history', 'computing'], canonicalUrl: 'https://blog.example/engines',
      publishStatus: 'unlisted', license: 'cc-40-by', notifyFollowers: false, contentFormat: 'markdown',
      content: '# A title\n\nSome **Markdown**.\n\n![The engine](https://sps.example/u/engine.png)',
    });
    expect(story).toMatchObject({ publishStatus: 'unlisted', publicationId: null, tags: ['history', 'computing'] });
    expect(checkpoint.saves).toEqual([{ sentAt: expect.any(String) as unknown }]);
  });

  it('publishes in a publication the user edits, and shows Medium\'s refusal of a writer\'s story', async () => {
    await publish({ settings: { title: 'In a publication', publicationId: 'b45573563f5a' } });
    expect(storiesTitled('In a publication')[0]?.publicationId).toBe('b45573563f5a');
    const writer = await platformFailure(publish({ settings: { title: 'Guest', publicationId: 'c99' } }));
    expect(writer).toMatchObject({ kind: 'permanent', httpStatus: 403 });
    expect(writer.message).toBe('Writers can only submit drafts to this publication.');
    await publish({ settings: { title: 'Guest draft', publicationId: 'c99', publishStatus: 'draft' } });
    expect(storiesTitled('Guest draft')).toHaveLength(1);
  });

  it('refuses settings the definition does not allow, and video, before calling Medium', async () => {
    const before = medium.received.length;
    const tags = await platformFailure(publish({ settings: { title: 'T', tags: ['a', 'b', 'c', 'd'] } }));
    expect(tags.kind).toBe('permanent');
    expect(tags.message).toMatch(/^Medium settings: tags: /);
    const video = await platformFailure(publish({ media: [linkedImage('https://x.example/v.mp4', null, 'video')] }));
    expect(video.message).toBe('Medium stories take images only');
    expect(medium.received.length).toBe(before);
  });

  it('calls a revoked token (code 6003) a disconnected channel', async () => {
    const error = await platformFailure(publish({ on: { ...channel, accessToken: 'revoked' } }));
    expect(error).toMatchObject({ kind: 'disconnected', httpStatus: 401, message: 'Token was invalid.' });
  });

  it('waits out the daily cap: as long as Retry-After says, else an hour at a time', async () => {
    medium.limits.perDay = 0;
    try {
      const checkpoint = memoryCheckpoint();
      const capped = await platformFailure(publish({ on: grace, checkpoint }));
      expect(capped).toMatchObject({ kind: 'retryable', httpStatus: 429, retryAfterMs: 3_600_000 });
      expect(capped.message).toBe(`User ${graceId} has reached the rate limit for publishing today.`);
      // Medium refused: nothing was made, so the next attempt may send without being unconfirmed.
      expect(checkpoint.values.sentAt).toBe('');
      medium.limits.retryAfterSeconds = 120;
      expect((await platformFailure(publish({ on: grace }))).retryAfterMs).toBe(120_000);
    } finally {
      medium.limits.perDay = 10;
      medium.limits.retryAfterSeconds = null;
    }
  });
});

describe('Medium exactly once', () => {
  it('stops as unconfirmed after a send whose answer was lost, since Medium cannot list stories', async () => {
    const checkpoint = memoryCheckpoint();
    medium.failNext(`POST /v1/users/${adaId}/posts`, 'lose');
    const lost = await platformFailure(publish({ settings: { title: 'Lost story' }, checkpoint }));
    expect(lost.kind).toBe('retryable');
    const sends = medium.requestsTo(`POST /v1/users/${adaId}/posts`).length;

    const again = await platformFailure(publish({ settings: { title: 'Lost story' }, checkpoint }));
    expect(again.kind).toBe('unconfirmed');
    expect(again.message).toContain('its API cannot list stories');
    expect(medium.requestsTo(`POST /v1/users/${adaId}/posts`)).toHaveLength(sends);
    expect(storiesTitled('Lost story')).toHaveLength(1);
  });
});

describe('Medium tools and reads', () => {
  it('lists the user\'s publications and a publication\'s contributors', async () => {
    expect(await adapter.tools.publications?.(channel, {})).toEqual([
      { id: 'b45573563f5a', name: 'Engines Weekly', description: '', url: 'https://medium.com/engines' },
      { id: 'c99', name: 'Guest Desk', description: '', url: 'https://medium.com/guest' },
    ]);
    expect(await adapter.tools.contributors?.(channel, { publicationId: 'b45573563f5a' }))
      .toEqual([{ publicationId: 'b45573563f5a', userId: adaId, role: 'editor' }]);
    const bad = await platformFailure(adapter.tools.contributors?.(channel, {}) ?? Promise.resolve());
    expect(bad.message).toMatch(/^contributors tool: publicationId: /);
  });

  it('has no analytics and nothing to list as recent content: Medium\'s API reads no stories', async () => {
    expect(adapter.analytics).toBeUndefined();
    expect(await adapter.recentContent(channel)).toEqual([]);
  });
});
