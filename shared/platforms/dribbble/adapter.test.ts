import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startDribbbleSimulator, type DribbbleSimulator,
} from '../../../test/simulators/dribbble/dribbble-simulator.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createDribbbleAdapter } from './adapter.ts';
import { dribbbleConnect } from './connect.ts';
import { synthesizedMedia } from '../../../test/support/synthesized-media.ts';

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error: unknown = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('Dribbble adapter against the simulator', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-dribbble-'));
  /** An image of `size` made by ffmpeg, in the format its name says. */
  const image = (name: string, size: string) => {
    const file = path.join(dir, name);
    const source = ['-f', 'lavfi', '-i', `color=c=teal:s=${size}`];
    synthesizedMedia([...source, '-frames:v', '1'], file);
    return file;
  };
  const files = { png: '', gif: '', odd: '' };
  let sim: DribbbleSimulator;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;

  function media(file: string, mimeType: string): PublishMedia {
    const bytes = readFileSync(file);
    const fileName = path.basename(file);
    return {
      kind: 'image', mimeType, size: bytes.length, fileName, alt: null, url: `http://127.0.0.1/uploads/${fileName}`,
      open: () => Promise.resolve(Readable.from([bytes])),
    };
  }

  beforeAll(async () => {
    files.png = image('shot.png', '800x600');
    files.gif = image('small.gif', '400x300');
    files.odd = image('odd.png', '640x480');
    sim = await startDribbbleSimulator();
    sim.addUser({
      id: 1, name: 'Dan Cederholm', login: 'simplebits', can_upload_shot: true, followers_count: 4_200,
      avatar_url: 'https://cdn.dribbble.com/users/1/avatars/normal/dc.jpg',
      teams: [{ id: 39, name: 'Dribbble', login: 'dribbble' }],
    });
    sim.authority.consentingUser = '1';
    const { url } = sim;
    const app = {
      clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null,
    };
    const context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const { tokens } = await authorizeAndConnect(dribbbleConnect, context);
    channel = { channelId: 'c1', accessToken: tokens.accessToken, instanceUrl: null };
    adapter = createDribbbleAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, app);
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    sim.rateLimit.limit = 60;
    sim.shots.dailyLimit = 50;
  });

  function publish(
    content: string,
    settings: Record<string, unknown>,
    file = media(files.png, 'image/png'),
    checkpoint = memoryCheckpoint(),
  ) {
    return adapter.publish({ channel, content, media: [file], settings, idempotencyKey: 'k', checkpoint });
  }

  const shotsTitled = (title: string) => sim.shots.items.filter((shot) => shot.title === title);

  it('uploads a shot with title, description, tags and profile switch, and reads its id from Location', async () => {
    const settings = { title: 'Dashboard', tags: ['ui', 'dark mode'], low_profile: true };
    const result = await publish('A <strong>dark</strong> dashboard', settings);
    const [shot] = shotsTitled('Dashboard');
    const id = String(shot?.id);
    expect(result).toEqual({ releaseId: id, releaseURL: `https://dribbble.com/shots/${id}` });
    expect(shot).toMatchObject({
      description: 'A <strong>dark</strong> dashboard', tags: ['ui', 'dark mode'], lowProfile: true, teamId: null,
      image: { mimeType: 'image/png', width: 800, height: 600, fileName: 'shot.png' },
    });
    expect(shot?.image.bytes.equals(readFileSync(files.png))).toBe(true);
  });

  it('posts for a team the player belongs to, and shows Dribbble\'s refusal of another team', async () => {
    await publish('For the team', { title: 'Team shot', team_id: 39 }, media(files.gif, 'image/gif'));
    expect(shotsTitled('Team shot')[0]).toMatchObject({ teamId: 39, image: { mimeType: 'image/gif', width: 400 } });
    const error = await failure(publish('Not my team', { title: 'Other team', team_id: 40 }));
    expect(error).toMatchObject({
      kind: 'permanent', httpStatus: 422, message: 'Validation failed. team_id is not a team you belong to',
    });
  });

  it('shows Dribbble\'s refusal of an image of another size', async () => {
    const error = await failure(publish('Wrong size', { title: 'Odd' }, media(files.odd, 'image/png')));
    expect(error).toMatchObject({
      kind: 'permanent', message: 'Validation failed. image must be exactly 400x300 or 800x600',
    });
    expect(shotsTitled('Odd')).toHaveLength(0);
  });

  it('uploads once when the answer was lost: the retry finds the shot by its title', async () => {
    const checkpoint = memoryCheckpoint();
    sim.failNext('POST /v2/shots', 'lose');
    expect((await failure(publish('Lost', { title: 'Lost answer' }, undefined, checkpoint))).kind).toBe('retryable');
    const result = await publish('Lost', { title: 'Lost answer' }, undefined, checkpoint);
    const made = shotsTitled('Lost answer');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(String(made[0]?.id));
    expect(sim.requestsTo('POST /v2/shots').filter((request) => request.text.includes('Lost answer'))).toHaveLength(1);
    expect(checkpoint.saves).toEqual([{ shotAttemptAt: checkpoint.values.shotAttemptAt }]);
  });

  it('uploads again when the checkpoint is marked but no shot has the title', async () => {
    const checkpoint = memoryCheckpoint({ shotAttemptAt: new Date().toISOString() });
    await publish('Never arrived', { title: 'Second try' }, undefined, checkpoint);
    expect(shotsTitled('Second try')).toHaveLength(1);
    expect(sim.requestsTo('GET /v2/user/shots').at(-1)?.query.get('per_page')).toBe('100');
  });

  it('calls an accept without a readable Location unconfirmed', async () => {
    sim.failNext('POST /v2/shots', { status: 202 });
    expect(await failure(publish('No location', { title: 'Nowhere' }))).toMatchObject({ kind: 'unconfirmed' });
  });

  it('waits for the rate limit\'s reset, and fails on the daily shot limit with Dribbble\'s words', async () => {
    sim.failNext('POST /v2/shots', sim.rateLimited(5));
    const throttled = await failure(publish('Throttled', { title: 'Throttled' }));
    expect(throttled.kind).toBe('retryable');
    expect(throttled.retryAfterMs).toBeGreaterThanOrEqual(4_000);
    expect(throttled.retryAfterMs).toBeLessThanOrEqual(6_000);
    // v1's way of saying it: the wait comes from the window's X-RateLimit-Reset every answer carries.
    sim.failNext('POST /v2/shots', { status: 403, body: { message: 'Rate Limit Exceeded' } });
    const refused = await failure(publish('Throttled', { title: 'Throttled' }));
    expect(refused.kind).toBe('retryable');
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(1_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(61_000);
    sim.rateLimit.limit = 0;
    const spent = await failure(publish('Throttled', { title: 'Throttled' }));
    expect(spent).toMatchObject({ kind: 'retryable', httpStatus: 429 });
    sim.rateLimit.limit = 60;

    sim.shots.dailyLimit = 0;
    const daily = await failure(publish('Too many today', { title: 'Daily' }));
    expect(daily.kind).toBe('permanent');
    expect(daily.message).toContain('daily limit');
    expect(shotsTitled('Throttled')).toHaveLength(0);
  });

  it('lists teams, followers and latest shots; a shot has no counters; comments are refused', async () => {
    expect(await adapter.tools.teams?.(channel, {})).toEqual([{
      id: 39, name: 'Dribbble', login: 'dribbble', avatarUrl: null, url: 'https://dribbble.com/dribbble',
    }]);
    expect(await adapter.analytics?.account(channel)).toEqual([{ label: 'Followers', value: 4_200 }]);
    const recent = await adapter.recentContent(channel);
    const newest = sim.shots.items.at(-1);
    expect(recent[0]?.id).toBe(String(newest?.id));
    expect(recent[0]?.url).toMatch(new RegExp(`^https://dribbble.com/shots/${String(newest?.id)}-`));
    expect(await adapter.analytics?.post(channel, String(newest?.id))).toEqual([]);
    const comment = adapter.comment({
      channel, content: 'reply', media: [], settings: {}, idempotencyKey: 'k', checkpoint: memoryCheckpoint(),
      parentReleaseId: String(newest?.id),
    });
    expect((await failure(comment)).kind).toBe('permanent');
  });

  // Last: revoking voids every token the simulator issued.
  it('calls a revoked token disconnected', async () => {
    sim.authority.revokeAll();
    expect(await failure(publish('Revoked', { title: 'Revoked' }))).toMatchObject({
      kind: 'disconnected', message: 'Bad credentials.',
    });
  });
});
