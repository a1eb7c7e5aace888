import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';
import { tiktokError } from '../../../test/simulators/tiktok/tiktok-answers.ts';
import { connectedChannel, startTikTokWithCreators } from '../../../test/simulators/tiktok/tiktok-test-accounts.ts';
import type { RunningTikTokSimulator } from '../../../test/simulators/tiktok/tiktok-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4 } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishInput } from '../kit/platform-adapter.ts';
import { createTikTokAdapter } from './adapter.ts';

const initPath = 'POST /v2/post/publish/video/init/';
const polling = { firstWaitMs: 20, maxIntervalMs: 200, maxWaitMs: 800, publicIdWaitMs: 300 };

let sim: RunningTikTokSimulator;
let adapter: PlatformAdapter;
let ada: ChannelCredentials;

function part(content: string, settings: Record<string, unknown> = {}, channel = ada): PublishInput {
  const bytes = sampleMp4(30_000);
  const media = {
    kind: 'video' as const, mimeType: 'video/mp4', size: bytes.length, fileName: 'v.mp4', alt: null,
    url: 'https://media.example/v.mp4', open: () => Promise.resolve(Readable.from([bytes])),
  };
  return {
    channel, content, media: [media], settings: { privacy_level: 'PUBLIC_TO_EVERYONE', ...settings },
    idempotencyKey: `k-${content}`, checkpoint: memoryCheckpoint(),
  };
}

beforeAll(async () => {
  sim = await startTikTokWithCreators();
  adapter = createTikTokAdapter(
    { timeoutMs: 2_000, userHosts: connectionPolicyFor(false) },
    { apiUrl: sim.url },
    { chunkBytes: 5 * 1024 * 1024, polling },
  );
});
afterAll(async () => { await sim.close(); });
beforeEach(async () => {
  sim.authority.now = Date.now;
  sim.app.unaudited = false;
  ada = await connectedChannel(sim, 'ada');
});

describe('TikTok refusals, classified on error.code', () => {
  it('asks for a refresh when the access token expired', async () => {
    sim.authority.now = () => Date.now() + 86_400_000;
    const error = await platformFailure(adapter.publish(part('Expired')));
    expect(error).toMatchObject({ kind: 'refresh_token', httpStatus: 401 });
    expect(error.message).toBe('The access token is invalid or not found in the request. (access_token_invalid)');
  });

  it('calls a permission the user did not grant disconnected', async () => {
    const cal = await connectedChannel(sim, 'cal');
    const error = await platformFailure(adapter.analytics?.account(cal) ?? Promise.resolve());
    expect(error.kind).toBe('disconnected');
    expect(error.message).toMatch(/\(scope_not_authorized\); connect the account again and allow every permission/);
  });

  it('waits a minute after rate_limit_exceeded, TikTok sending no reset time', async () => {
    sim.rates.limits[initPath] = 1;
    try {
      await adapter.publish(part('Within the limit'));
      const error = await platformFailure(adapter.publish(part('Over the limit')));
      expect(error).toMatchObject({ kind: 'retryable', httpStatus: 429, retryAfterMs: 60_000 });
      expect(error.message).toBe('API rate limit was exceeded, please try again later. (rate_limit_exceeded)');
    } finally {
      sim.rates.limits[initPath] = 6;
    }
  });

  it('waits an hour once the creator\'s daily posts are spent', async () => {
    sim.failNext(initPath, tiktokError(403, 'spam_risk_too_many_posts', 'The user has reached the daily post cap.'));
    const error = await platformFailure(adapter.publish(part('One too many')));
    expect(error).toMatchObject({ kind: 'retryable', retryAfterMs: 3_600_000 });
    expect(error.message).toBe('The user has reached the daily post cap. (spam_risk_too_many_posts); the account '
      + 'reached its daily number of posts through the API; SPS tries again later');
  });

  it('fails a public post of an unaudited app with TikTok\'s words and what to do', async () => {
    sim.app.unaudited = true;
    const error = await platformFailure(adapter.publish(part('Unaudited')));
    expect(error.kind).toBe('permanent');
    expect(error.message).toBe('Unaudited clients can only post to private accounts: use privacy_level SELF_ONLY. '
      + '(unaudited_client_can_only_post_to_private_accounts); until TikTok audits this app, posts must use '
      + 'privacy_level SELF_ONLY');
    expect((await adapter.publish(part('Unaudited but private', { privacy_level: 'SELF_ONLY' }))).releaseURL)
      .toBe('https://www.tiktok.com/@ada.films');
  });

  it('reads a refusal sent with HTTP 200, and TikTok\'s server trouble as retryable', async () => {
    sim.failNext(initPath, {
      ...tiktokError(200, 'invalid_params', 'video_size is required'),
      offDescription: 'TikTok documents invalid_params as HTTP 400; SPS reads the error code whatever the status',
    });
    const refused = await platformFailure(adapter.publish(part('Refused with 200')));
    expect(refused).toMatchObject({ kind: 'permanent', message: 'video_size is required (invalid_params)' });

    sim.failNext(initPath, tiktokError(500, 'internal_error', 'Something went wrong.'));
    expect((await platformFailure(adapter.publish(part('Server trouble')))).kind).toBe('retryable');
  });

  it('refuses settings that do not parse, and comments, which TikTok has none of', async () => {
    const error = await platformFailure(adapter.publish(part('Bad settings', { privacy_level: 'EVERYONE' })));
    expect(error.kind).toBe('permanent');
    expect(error.message).toMatch(/^the post's TikTok settings are invalid: privacy_level: /);
    const comment = await platformFailure(adapter.comment({ ...part('A reply'), parentReleaseId: '1' }));
    expect(comment.message).toBe('TikTok has no comments or replies through its API: send one part only');
  });
});

describe('TikTok tools, analytics and recent posts', () => {
  it('offers creator_info as the creatorInfo tool, and refuses data it does not take', async () => {
    const bea = await connectedChannel(sim, 'bea');
    expect(await adapter.tools.creatorInfo?.(bea, {})).toEqual({
      username: 'bea.quiet',
      nickname: 'bea.quiet on TikTok',
      avatarUrl: 'https://p16-sign.tiktokcdn.com/bea.quiet.jpeg',
      privacyLevelOptions: ['MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
      commentDisabled: true,
      duetDisabled: true,
      stitchDisabled: true,
      maxVideoPostDurationSec: 30,
    });
    const error = await platformFailure(adapter.tools.creatorInfo?.(bea, { user: 'x' }) ?? Promise.resolve());
    expect(error).toMatchObject({ kind: 'permanent', message: 'creatorInfo takes no data; remove user' });
  });

  it('reads the account\'s counters, and a post\'s by its id or by a publish_id exposed since', async () => {
    const published = await adapter.publish(part('Counted'));
    const post = sim.publishing.posts().find((item) => item.id === published.releaseId);
    if (post === undefined) throw new Error('the post was not made');
    Object.assign(post.counters, { views: 1500, likes: 120, comments: 7, shares: 3 });

    const account = await adapter.analytics?.account(ada);
    expect(account).toEqual([
      { label: 'Followers', value: 1200 }, { label: 'Following', value: 80 },
      { label: 'Likes', value: 34_000 },
      { label: 'Videos', value: sim.publishing.posts().filter((item) => item.openId === post.openId).length },
    ]);
    const counters = [
      { label: 'Views', value: 1500 }, { label: 'Likes', value: 120 }, { label: 'Comments', value: 7 },
      { label: 'Shares', value: 3 },
    ];
    expect(await adapter.analytics?.post(ada, published.releaseId)).toEqual(counters);
    expect(await adapter.analytics?.post(ada, post.publishId)).toEqual(counters);
    const selfOnly = await adapter.publish(part('Private counters', { privacy_level: 'SELF_ONLY' }));
    expect(await adapter.analytics?.post(ada, selfOnly.releaseId)).toEqual([]);
  });

  it('lists the account\'s recent posts, newest first', async () => {
    const first = await adapter.publish(part('Older'));
    const second = await adapter.publish(part('Newer'));
    const recent = await adapter.recentContent(ada);
    const ids = recent.map((item) => item.id);
    expect(ids.indexOf(second.releaseId)).toBeLessThan(ids.indexOf(first.releaseId));
    expect(recent.find((item) => item.id === first.releaseId)?.url).toBe(first.releaseURL);
  });
});
