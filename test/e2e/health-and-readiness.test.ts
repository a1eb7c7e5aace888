import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readinessTimeoutMs, type ReadinessDeps } from '../../shared/runtime/readiness.ts';
import { createRedis } from '../../shared/queue/redis.ts';
import { createStorage } from '../../shared/storage/create-storage.ts';
import { startWorkerHttp } from '../../workers/worker-http.ts';
import { freePort } from '../support/free-port.ts';
import { startStack, type RunningStack } from '../support/stack.ts';
import { createTestContext, type TestContext } from '../support/test-context.ts';

type ReadyBody = { status: string; checks: Record<string, { ok: boolean; error?: string }> };

/** /health says the process answers; /ready whether what it needs works, on the api and the workers. */
describe('health and readiness', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let redis: Redis;
  let deps: ReadinessDeps;

  beforeAll(async () => {
    // The log keeps what /ready leaves out.
    ctx = await createTestContext({ LOG_LEVEL: 'warn' });
    stack = await startStack(ctx, { workers: false });
    redis = new Redis(ctx.config.REDIS_URL);
    deps = {
      db: ctx.db,
      redis,
      storage: await createStorage(ctx.config),
      mediaTools: { ffprobe: 'ffprobe', ffmpeg: 'ffmpeg' },
      timeoutMs: readinessTimeoutMs,
    };
  });
  afterAll(async () => {
    await redis.quit();
    await stack.close();
    await ctx.cleanup();
  });

  const get = async (url: string): Promise<{ status: number; body: ReadyBody }> => {
    const response = await fetch(url);
    return { status: response.status, body: await response.json() as ReadyBody };
  };

  it('the api answers /health, and /ready after checking MongoDB, Redis and a storage write', async () => {
    expect(await get(`${stack.baseUrl}/health`)).toEqual({ status: 200, body: { status: 'ok' } });
    const ready = await get(`${stack.baseUrl}/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(Object.keys(ready.body.checks).sort()).toEqual(['mongodb', 'redis', 'storage']);
    expect(Object.values(ready.body.checks).every((check) => check.ok)).toBe(true);
  });

  it('a media worker is ready with ffprobe and ffmpeg runnable, and says which one is missing otherwise', async () => {
    const worker = await startWorkerHttp({ host: '127.0.0.1', port: 0 }, deps, ctx.logger);
    const broken = await startWorkerHttp(
      { host: '127.0.0.1', port: 0 },
      { ...deps, mediaTools: { ffprobe: '/nonexistent/ffprobe', ffmpeg: 'ffmpeg' } },
      ctx.logger,
    );
    try {
      const health = await get(`http://127.0.0.1:${String(worker.port)}/health`);
      expect(health).toEqual({ status: 200, body: { status: 'ok' } });
      const ready = await get(`http://127.0.0.1:${String(worker.port)}/ready`);
      expect(ready.status).toBe(200);
      expect(Object.keys(ready.body.checks).sort()).toEqual(['ffmpeg', 'ffprobe', 'mongodb', 'redis', 'storage']);

      const notReady = await get(`http://127.0.0.1:${String(broken.port)}/ready`);
      expect(notReady.status).toBe(503);
      expect(notReady.body.status).toBe('not_ready');
      expect(notReady.body.checks.ffprobe).toMatchObject({ ok: false, error: 'not installed on this server' });
      expect(notReady.body.checks.ffmpeg).toMatchObject({ ok: true });
      expect((await fetch(`http://127.0.0.1:${String(broken.port)}/metrics-or-anything`)).status).toBe(404);
    } finally {
      await worker.close();
      await broken.close();
    }
  });


  it('a video worker is ready only when espeak-ng runs too, and names it when it does not', async () => {
    const at = { host: '127.0.0.1', port: 0 };
    const video = await startWorkerHttp(at, { ...deps, speechEngine: 'espeak-ng' }, ctx.logger);
    const mute = await startWorkerHttp(at, { ...deps, speechEngine: '/nonexistent/espeak-ng' }, ctx.logger);
    try {
      const ready = await get(`http://127.0.0.1:${String(video.port)}/ready`);
      expect(ready.status).toBe(200);
      const checks = ['espeak-ng', 'ffmpeg', 'ffprobe', 'mongodb', 'redis', 'storage'];
      expect(Object.keys(ready.body.checks).sort()).toEqual(checks);
      const notReady = await get(`http://127.0.0.1:${String(mute.port)}/ready`);
      expect(notReady.status).toBe(503);
      expect(notReady.body.checks['espeak-ng']).toMatchObject({ ok: false, error: 'not installed on this server' });
      // Where it was looked for, and what to install, is the operator's to read in the log.
      expect(ctx.logLines.join('')).toMatch(/"event":"readiness\.failed".*install the espeak-ng package/);
    } finally {
      await video.close();
      await mute.close();
    }
  });

  it('answers a short reason per dependency and logs the drivers\' errors, which name internal hosts', async () => {
    // MongoDB behind a relay that stops: the driver's error then names the address it dialled.
    const sockets = new Set<Socket>();
    const mongo = new URL(ctx.config.MONGO_URL);
    const relay = createServer((client) => {
      const upstream = connect(Number(mongo.port), mongo.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('error', () => { socket.destroy(); });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayPort = String((relay.address() as AddressInfo).port);
    const lost = mongoose.createConnection(`mongodb://localhost:${relayPort}/${ctx.db.connection.name}`, {
      serverSelectionTimeoutMS: 300, directConnection: true,
    });
    await lost.asPromise();
    const closed = new Promise<void>((resolve) => { relay.close(() => { resolve(); }); });
    for (const socket of sockets) socket.destroy();
    await closed;
    const deadRedis = createRedis('redis://redis.internal.invalid:6379', 'producer');
    deadRedis.on('error', () => undefined);
    const worker = await startWorkerHttp(
      { host: '127.0.0.1', port: 0 }, { ...deps, db: { ...ctx.db, connection: lost }, redis: deadRedis }, ctx.logger,
    );
    try {
      const response = await fetch(`http://127.0.0.1:${String(worker.port)}/ready`);
      const text = await response.text();
      expect(response.status).toBe(503);
      expect(JSON.parse(text)).toMatchObject({
        status: 'not_ready',
        checks: { mongodb: { ok: false, error: 'not answering' }, redis: { ok: false, error: 'not answering' } },
      });
      for (const internal of ['localhost', '127.0.0.1', relayPort, 'redis.internal.invalid', 'ECONNREFUSED']) {
        expect(text).not.toContain(internal);
      }
      const logged = ctx.logLines.filter((line) => line.includes('"event":"readiness.failed"')).join('');
      expect(logged).toMatch(new RegExp(`"check":"mongodb".*:${relayPort}`));
      expect(logged).toContain('"check":"redis"');
    } finally {
      await worker.close();
      deadRedis.disconnect();
      await lost.close();
    }
  });

  it('is not ready while Redis does not answer, and says so after its time limit instead of hanging', async () => {
    // Nothing listens there: the client keeps reconnecting and the ping never gets an answer.
    const deadRedis = new Redis(`redis://127.0.0.1:${String(await freePort())}`, { maxRetriesPerRequest: null });
    const refusals: Error[] = [];
    deadRedis.on('error', (error: Error) => { refusals.push(error); });
    const worker = await startWorkerHttp({ host: '127.0.0.1', port: 0 }, { ...deps, redis: deadRedis }, ctx.logger);
    try {
      const notReady = await get(`http://127.0.0.1:${String(worker.port)}/ready`);
      expect(notReady.status).toBe(503);
      expect(refusals.length).toBeGreaterThan(0);
      const late = `no answer within ${String(readinessTimeoutMs)} ms`;
      expect(notReady.body.checks.redis).toMatchObject({ ok: false, error: late });
      expect(notReady.body.checks.mongodb).toMatchObject({ ok: true });
    } finally {
      await worker.close();
      deadRedis.disconnect();
    }
  });
});
