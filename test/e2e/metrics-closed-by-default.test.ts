import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { readinessTimeoutMs } from '../../shared/runtime/readiness.ts';
import { SpsMetrics } from '../../shared/metrics/sps-metrics.ts';
import { createStorage } from '../../shared/storage/create-storage.ts';
import { startWorkerHttp } from '../../workers/worker-http.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';

/** Without METRICS_TOKEN, /metrics is closed to everyone, and says which setting opens it. */
describe('/metrics without METRICS_TOKEN', () => {
  const world = useSimulatedStack({ workers: false });

  /** Every way a scraper might ask: nothing, and some Bearer token. */
  async function expectClosed(url: string): Promise<void> {
    for (const headers of [{}, { Authorization: 'Bearer some-token-of-enough-length' }]) {
      const response = await fetch(url, { headers });
      expect(response.status).toBe(403);
      const body = await response.json() as { error: string; message: string };
      expect(body.error).toBe('metrics_disabled');
      expect(body.message).toMatch(/METRICS_TOKEN is not set\. Set METRICS_TOKEN/);
      expect(body.message).toContain('Authorization: Bearer');
    }
  }

  it('answers 403 on the api, even to a client on the loopback address', async () => {
    expect(world.ctx.config.METRICS_TOKEN).toBeUndefined();
    await expectClosed(`${world.stack.baseUrl}/metrics`);
  });

  it('answers 403 on a worker process\'s HTTP port', async () => {
    const { ctx } = world;
    const redis = new Redis(ctx.config.REDIS_URL);
    const http = await startWorkerHttp(
      { host: '127.0.0.1', port: 0 },
      { db: ctx.db, redis, storage: await createStorage(ctx.config), mediaTools: null, timeoutMs: readinessTimeoutMs },
      ctx.logger,
      { metrics: new SpsMetrics('workers'), token: undefined },
    );
    try {
      await expectClosed(`http://127.0.0.1:${String(http.port)}/metrics`);
    } finally {
      await http.close();
      await redis.quit();
    }
  });
});
