import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Queue } from 'bullmq';
import { createApiRuntime } from '../../api/api-runtime.ts';
import { closeHttpServer, listenHttpServer } from '../../api/http-server.ts';
import { createRedis } from '../../shared/queue/redis.ts';
import { startConfiguredWorkers, type RunningWorkers } from '../../workers/worker-runtime.ts';
import type { CacheInvalidation } from '../../shared/cache/invalidation-bus.ts';
import type { TestContext } from './test-context.ts';

export interface RunningStack {
  baseUrl: string;
  publishQueue: Queue;
  /** The api's cache invalidation: domain changes a test makes itself are told through it. */
  caches: CacheInvalidation;
  workers: RunningWorkers | null;
  close(): Promise<void>;
}

/** The api (on a free port) and, unless told otherwise, the workers, in this process against real Redis and MongoDB. */
export async function startStack(
  ctx: TestContext,
  options: { workers?: boolean; port?: number } = {},
): Promise<RunningStack> {
  const runtime = await createApiRuntime(ctx.config, ctx.db, ctx.logger, ctx.env);
  const server: Server = await listenHttpServer(runtime.app.callback(), {
    host: '127.0.0.1',
    // A fixed port where FRONTEND_URL must name the api before it listens (OAuth callbacks).
    port: options.port ?? 0,
    requestTimeoutMs: ctx.config.HTTP_REQUEST_TIMEOUT_MS,
  });
  const { port } = server.address() as AddressInfo;

  const workerRedis = options.workers === false ? null : createRedis(ctx.config, 'worker', ctx.logger);
  const workers = workerRedis === null
    ? null
    : await startConfiguredWorkers(ctx.config, ctx.db, workerRedis, ctx.logger, ctx.env);

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    publishQueue: runtime.publishQueue,
    caches: runtime.caches,
    workers,
    async close() {
      await closeHttpServer(server, 1_000);
      await workers?.close(5_000);
      await runtime.close();
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
