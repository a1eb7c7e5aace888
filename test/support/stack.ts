import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Queue } from 'bullmq';
import { createApp } from '../../api/app.ts';
import { closeHttpServer } from '../../api/http-server.ts';
import { createAdapters } from '../../shared/platforms/adapters.ts';
import { BullPublishScheduler, createPublishQueue } from '../../shared/queue/publish-queue.ts';
import { createRedis } from '../../shared/queue/redis.ts';
import { startWorkers, type RunningWorkers } from '../../workers/worker-runtime.ts';
import type { TestContext } from './test-context.ts';

export interface RunningStack {
  baseUrl: string;
  publishQueue: Queue;
  workers: RunningWorkers | null;
  close(): Promise<void>;
}

/** The api (on a free port) and, unless told otherwise, the workers, in this process against real Redis and MongoDB. */
export async function startStack(ctx: TestContext, options: { workers?: boolean } = {}): Promise<RunningStack> {
  const { config } = ctx;
  const producer = createRedis(config.REDIS_URL, 'producer');
  const publishQueue = createPublishQueue(producer, { prefix: config.QUEUE_PREFIX, attempts: config.PUBLISH_ATTEMPTS, backoffMs: config.PUBLISH_BACKOFF_MS });
  await publishQueue.waitUntilReady();
  const app = createApp({ db: ctx.db, redis: producer, logger: ctx.logger, secrets: ctx.secrets, scheduler: new BullPublishScheduler(publishQueue), now: () => new Date() });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => { resolve(listening); });
  });
  const { port } = server.address() as AddressInfo;

  const workerRedis = options.workers === false ? null : createRedis(config.REDIS_URL, 'worker');
  const workers = workerRedis === null ? null : startWorkers(
    { db: ctx.db, adapters: createAdapters({ timeoutMs: config.PLATFORM_TIMEOUT_MS }), secrets: ctx.secrets, now: () => new Date() },
    workerRedis,
    { queues: config.WORKER_QUEUES, prefix: config.QUEUE_PREFIX, publishConcurrency: config.PUBLISH_CONCURRENCY },
    ctx.logger,
  );

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    publishQueue,
    workers,
    async close() {
      await closeHttpServer(server, 1_000);
      await workers?.close(5_000);
      await publishQueue.close();
      await producer.quit();
      await workerRedis?.quit();
    },
  };
}

/** Polls `check` until it returns a value other than undefined; never a fixed sleep. */
export async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, options: { timeoutMs?: number; what: string }): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
