import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ada, addTestSubreddits, connectAda } from '../../../test/simulators/reddit/reddit-channel.ts';
import { startRedditSimulator, type RedditSimulator } from '../../../test/simulators/reddit/reddit-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { samplePng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import type { PlatformApp } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createRedditAdapter } from './adapter.ts';
import { redditConnect } from './connect.ts';
import { rateLimitWaitMs } from './reddit-errors.ts';

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error: unknown = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

const png = samplePng();
const image: PublishMedia = {
  kind: 'image', mimeType: 'image/png', size: png.length, fileName: 'refused.png', alt: null, url: 'http://sps/r.png',
  open: () => Promise.resolve(Readable.from([png])),
};
const tuning = { listingPolls: 2, listingPollMs: 5, processingWindowMs: 60_000, processingWaitMs: 30_000 };

describe('Reddit adapter: refusals, classified on Reddit\'s own codes', () => {
  let sim: RedditSimulator;
  let app: PlatformApp;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;

  beforeAll(async () => {
    sim = await startRedditSimulator();
    sim.addUser(ada);
    addTestSubreddits(sim);
    ({ app, channel } = await connectAda(sim));
    adapter = createRedditAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(false) }, app, tuning);
  });
  afterAll(async () => { await sim.close(); });

  function publish(settings: Record<string, unknown>, media: PublishMedia[] = [], content = 'body', as = channel) {
    return adapter.publish({
      channel: as, content, media, settings, idempotencyKey: 'sps-post-r', checkpoint: memoryCheckpoint(),
    });
  }

  it.each([
    [
      { subreddit: 'pics', title: 'No flair', type: 'link', url: 'https://example.com/a' },
      'Reddit refused the link post: Your post must contain post flair. (SUBMIT_VALIDATION_FLAIR_REQUIRED, flair)',
    ],
    [
      { subreddit: 'pics', title: 'Text here', type: 'self', flair_id: 'f-oc' },
      'Reddit refused the self post: This community doesn\'t allow text posts. (NO_SELFS, sr)',
    ],
    [
      { subreddit: 'askscience', title: 'A link', type: 'link', url: 'https://example.com/b' },
      'Reddit refused the link post: This community only allows text posts. (NO_LINKS, sr)',
    ],
    [
      { subreddit: 'nowhere_at_all', title: 'Lost', type: 'self' },
      'Reddit refused the self post: that subreddit doesn\'t exist (SUBREDDIT_NOEXIST, sr)',
    ],
  ])('fails the post with Reddit\'s words for %o', async (settings, message) => {
    const error = await failure(publish(settings));
    expect(error).toMatchObject({ kind: 'permanent', httpStatus: 200, message, retryAfterMs: null });
  });

  it('fails an image post where the subreddit takes no images, after Reddit\'s refusal', async () => {
    const error = await failure(publish({ subreddit: 'typescript_jobs', title: 'Pic', type: 'image' }, [image]));
    expect(error).toMatchObject({ kind: 'permanent' });
    expect(error.message).toMatch(/doesn't allow images\. \(NO_IMAGES, sr\)$/);
  });

  it('refuses a comment over 10,000 characters with Reddit\'s TOO_LONG', async () => {
    const root = await publish({ subreddit: 'typescript', title: 'Long comment root', type: 'self' });
    const error = await failure(adapter.comment({
      channel, content: 'x'.repeat(10_001), media: [], settings: {}, idempotencyKey: 'k',
      checkpoint: memoryCheckpoint(), parentReleaseId: root.releaseId,
    }));
    expect(error.message).toBe('Reddit refused the comment: this is too long (max: 10000) (TOO_LONG, text)');
  });

  it('calls a private subreddit\'s 403 permanent, with Reddit\'s reason', async () => {
    const error = await failure(publish({ subreddit: 'secret_club', title: 'Hidden', type: 'self' }));
    expect(error).toMatchObject({ kind: 'permanent', httpStatus: 403, message: 'Reddit: Forbidden (private)' });
  });

  it('asks for a refreshed token when Reddit answers 401 to an expired one', async () => {
    sim.authority.now = () => Date.now() + 3_601_000;
    try {
      const error = await failure(publish({ subreddit: 'typescript', title: 'Expired', type: 'self' }));
      expect(error).toMatchObject({ kind: 'refresh_token', httpStatus: 401, message: 'Reddit: Unauthorized' });
    } finally {
      sim.authority.now = Date.now;
    }
  });

  it('waits for X-Ratelimit-Reset when the client\'s quota is spent', async () => {
    sim.limitRequests(0, 3);
    try {
      const error = await failure(publish({ subreddit: 'typescript', title: 'Over quota', type: 'self' }));
      expect(error).toMatchObject({ kind: 'retryable', httpStatus: 429, retryAfterMs: 3_000 });
    } finally {
      sim.limitRequests(1_000, 0);
    }
    const sent = sim.requestsTo('POST /api/submit').at(-1);
    expect(sent).toBeDefined();
  });

  it('reads S3\'s XML: a file over the limit is refused for good, an expired lease is tried again', async () => {
    const limits = { ...sim.uploads.limits };
    try {
      sim.uploads.limits = { ...limits, imageBytes: 10 };
      const large = await failure(publish({ subreddit: 'typescript', title: 'Big', type: 'image' }, [image]));
      expect(large).toMatchObject({ kind: 'permanent', httpStatus: 400 });
      expect(large.message).toBe('Reddit\'s media storage refused the file: Your proposed upload exceeds the maximum '
        + 'allowed size (EntityTooLarge)');
      sim.uploads.limits = { ...limits, leaseMs: -1 };
      const expired = await failure(publish({ subreddit: 'typescript', title: 'Late', type: 'image' }, [image]));
      expect(expired).toMatchObject({ kind: 'retryable', httpStatus: 403 });
    } finally {
      sim.uploads.limits = limits;
    }
  });

  it('flags a channel whose token lacks the history scope the look-up needs', async () => {
    const withoutHistory = {
      ...redditConnect,
      provider: (given: PlatformApp) => {
        const provider = redditConnect.provider(given);
        return { ...provider, scopes: provider.scopes.filter((scope) => scope !== 'history') };
      },
    };
    const older = await connectAda(sim, withoutHistory);
    const error = await failure(publish({ subreddit: 'typescript', title: 'Scoped', type: 'image' }, [image], '',
      older.channel));
    expect(error).toMatchObject({ kind: 'disconnected', httpStatus: 403 });
    expect(error.message).toMatch(/history scope/);
  });

  it('refuses settings and parents it cannot send, naming them', async () => {
    const bad = await failure(publish({ subreddit: 'r/typescript', title: 'x', type: 'self' }));
    expect(bad).toMatchObject({ kind: 'permanent' });
    expect(bad.message).toMatch(/^Reddit post settings: settings\.subreddit: must be a subreddit name/);
    const parent = await failure(adapter.comment({
      channel, content: 'hi', media: [], settings: {}, idempotencyKey: 'k', checkpoint: memoryCheckpoint(),
      parentReleaseId: '123_456',
    }));
    expect(parent.message).toBe('123_456 is not a Reddit post or comment');
  });

  it('refuses a flair id longer than the 36 characters /api/submit takes, before sending', async () => {
    const sent = sim.requestsTo('POST /api/submit').length;
    const flairId = 'f'.repeat(37);
    const bad = await failure(publish({ subreddit: 'pics', title: 'Long flair', type: 'self', flair_id: flairId }));
    expect(bad).toMatchObject({ kind: 'permanent' });
    expect(bad.message).toMatch(/^Reddit post settings: settings\.flair_id: /);
    expect(sim.requestsTo('POST /api/submit')).toHaveLength(sent);
  });
});

describe('RATELIMIT waits', () => {
  it.each([
    ['you are doing that too much. try again in 5 minutes.', undefined, 300_000],
    ['Looks like you\'ve been doing that a lot. Take a break for 9 seconds before trying again.', undefined, 9_000],
    ['try again in 1 hour.', undefined, 3_600_000],
    ['you are doing that too much.', 42.2, 42_200],
    ['you are doing that too much.', undefined, 60_000],
  ])('reads "%s" (ratelimit %s) as %i ms', (message, seconds, expected) => {
    expect(rateLimitWaitMs(message, seconds)).toBe(expected);
  });
});
