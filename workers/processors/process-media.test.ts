import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordUploadedMedia } from '../../shared/domain/media/store-media.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { MediaQueue } from '../../shared/queue/media-queue.ts';
import { createRedis } from '../../shared/queue/redis.ts';
import { newObjectKey } from '../../shared/storage/object-key.ts';
import { api } from '../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

describe('the media worker with an input ffprobe would wait on forever', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let producer: Redis;
  let eventsConnection: Redis;
  let events: QueueEvents;
  let queue: MediaQueue;

  beforeAll(async () => {
    ctx = await createTestContext({ FFPROBE_TIMEOUT_MS: '1000' });
    stack = await startStack(ctx);
    producer = createRedis(ctx.config.REDIS_URL, 'producer');
    eventsConnection = createRedis(ctx.config.REDIS_URL, 'worker');
    events = MediaQueue.events(eventsConnection, ctx.config.QUEUE_PREFIX);
    await events.waitUntilReady();
    queue = new MediaQueue(producer, events, { prefix: ctx.config.QUEUE_PREFIX });
  });
  afterAll(async () => {
    await queue.close();
    await events.close();
    await producer.quit();
    await eventsConnection.quit();
    await stack.close();
    await ctx.cleanup();
  });

  it('stops ffprobe at FFPROBE_TIMEOUT_MS and fails the media with a timeout reason, keeping no file', async () => {
    const { organizationId, apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Stuck' });
    // A stored "video" that is a FIFO nobody writes to: opening it blocks ffprobe for good.
    const key = newObjectKey('mp4');
    const file = path.join(ctx.config.UPLOADS_DIR, key);
    mkdirSync(path.dirname(file), { recursive: true });
    execFileSync('mkfifo', [file]);
    const media = await recordUploadedMedia(ctx.db, organizationId, {
      key,
      url: `${ctx.config.UPLOADS_PUBLIC_URL}/${key}`,
      size: 1024,
      type: { mimeType: 'video/mp4', kind: 'video', extension: 'mp4' },
    }, 'stuck.mp4');
    const mediaId = media._id.toString();

    const started = Date.now();
    const outcome = await queue.processAndWait({ organizationId, mediaId, kind: 'inspect' }, 20_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    const message = 'Failed to load video metadata: ffprobe took longer than 1 s';
    const failed = { id: mediaId, status: 'failed', error: message, reason: 'unreadable_media:timeout' };
    expect(outcome).toEqual({ finished: true, result: expect.objectContaining(failed) as unknown });
    expect(existsSync(file)).toBe(false);
    expect(await api(stack.baseUrl, apiKey, `/api/public/v1/media/${mediaId}`)).toMatchObject({
      status: 200, body: { ...failed, path: null },
    });
    const notification = await ctx.db.notifications.findOne({ organizationId }).lean();
    expect(notification?.content).toBe(`Media could not be added: the upload of stuck.mp4 failed: ${message}`);
  });
});
