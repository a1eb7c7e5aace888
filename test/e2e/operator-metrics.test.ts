import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { PlatformError } from '../../shared/platforms/kit/platform-error.ts';
import { SpsMetrics } from '../../shared/metrics/sps-metrics.ts';
import { startWorkerHttp } from '../../workers/worker-http.ts';
import { countedRefresher } from '../../workers/token-refresh-metrics.ts';
import { readinessTimeoutMs } from '../../shared/runtime/readiness.ts';
import { createStorage } from '../../shared/storage/create-storage.ts';
import { api, organizationWithMastodon } from '../support/fixtures.ts';
import { useSimulatedStack } from '../support/simulated-stack.ts';
import { waitFor } from '../support/stack.ts';
import { publishNow, settledParts } from '../support/publish-now.ts';

const metricsToken = 'metrics-token-for-the-test-0001';

/** One sample's value out of Prometheus' text format; undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.lastIndexOf('}'));
    const present = inside.split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/**
 * /metrics on the api and on a worker process's HTTP port, read as Prometheus reads them, after
 * real requests and real publishes through the queue to the Mastodon simulator.
 */
describe('Prometheus metrics', () => {
  const world = useSimulatedStack({ overrides: { METRICS_TOKEN: metricsToken, PUBLISH_BACKOFF_MS: '20' } });
  const scrape = async (url: string, token: string | null = metricsToken) => {
    const response = await fetch(url, token === null ? {} : { headers: { Authorization: `Bearer ${token}` } });
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };

  it('the api times requests by route pattern and status, and counts every queue\'s jobs by state', async () => {
    const org = await organizationWithMastodon(world.ctx, world.simulator.origin, 'token-unused');
    for (const id of ['0123456789abcdef01234567', 'fedcba9876543210fedcba98']) {
      expect((await api(world.stack.baseUrl, org.apiKey, `/api/public/v1/posts/${id}`)).status).toBe(404);
    }
    const scheduled = await api(world.stack.baseUrl, org.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: {
        type: 'schedule', date: new Date(Date.now() + 3_600_000).toISOString(),
        posts: [{ integration: { id: org.channelId }, value: [{ content: 'Later' }] }],
      },
    });
    expect(scheduled.status).toBe(201);

    const { status, type, text } = await scrape(`${world.stack.baseUrl}/metrics`);
    expect(status).toBe(200);
    expect(type).toContain('text/plain');
    const notFound = { method: 'GET', route: '/api/public/v1/posts/:id', status: '404', process: 'api' };
    expect(sample(text, 'sps_http_request_duration_seconds_count', notFound)).toBe(2);
    const created = { method: 'POST', route: '/api/public/v1/posts', status: '201' };
    expect(sample(text, 'sps_http_request_duration_seconds_count', created)).toBe(1);
    expect(sample(text, 'sps_queue_jobs', { queue: 'publish', state: 'delayed' })).toBeGreaterThanOrEqual(1);
    for (const queue of ['publish', 'platform', 'media', 'video', 'maintenance']) {
      for (const state of ['waiting', 'active', 'delayed', 'failed']) {
        expect(sample(text, 'sps_queue_jobs', { queue, state }), `${queue} ${state}`).toBeTypeOf('number');
      }
    }
    expect(text).toContain('sps_process_resident_memory_bytes');
  });

  it('refuses a scrape without the METRICS_TOKEN, or with another one', async () => {
    const missing = await scrape(`${world.stack.baseUrl}/metrics`, null);
    expect(missing.status).toBe(401);
    expect((await scrape(`${world.stack.baseUrl}/metrics`, 'another-token-of-enough-length')).status).toBe(401);
  });

  it('a worker process serves publish outcomes and job timings by platform and error class', async () => {
    const workers = world.stack.workers;
    if (workers === null) throw new Error('the stack runs its workers');
    const token = world.simulator.addAccount(`metrics${Math.random().toString(36).slice(2, 8)}`);
    const org = await organizationWithMastodon(world.ctx, world.simulator.origin, token);
    const published = await publishNow(world.stack.baseUrl, org, ['Counted once']);
    expect((await settledParts(world.ctx.db, published))[0]?.state).toBe('PUBLISHED');
    world.simulator.failNext({ status: 422, body: { error: 'Validation failed: Text can\'t be blank' } });
    const refused = await publishNow(world.stack.baseUrl, org, ['Refused once']);
    expect((await settledParts(world.ctx.db, refused))[0]?.state).toBe('ERROR');

    const redis = new Redis(world.ctx.config.REDIS_URL);
    const http = await startWorkerHttp(
      { host: '127.0.0.1', port: 0 },
      {
        db: world.ctx.db, redis, storage: await createStorage(world.ctx.config),
        mediaTools: null, timeoutMs: readinessTimeoutMs,
      },
      world.ctx.logger,
      { metrics: workers.metrics, token: metricsToken },
    );
    try {
      const base = `http://127.0.0.1:${String(http.port)}`;
      expect((await scrape(`${base}/metrics`, null)).status).toBe(401);
      const platform = { platform: 'mastodon', process: 'workers' };
      // The job is counted when it ends, after the post's state is written: waited for.
      const text = await waitFor(async () => {
        const scraped = (await scrape(`${base}/metrics`)).text;
        const failed = { ...platform, outcome: 'failed', error_class: 'permanent' };
        return sample(scraped, 'sps_publish_outcomes_total', failed) === undefined ? undefined : scraped;
      }, { what: 'the failed publish to be counted' });
      expect(sample(text, 'sps_publish_outcomes_total', { ...platform, outcome: 'published', error_class: 'none' }))
        .toBeGreaterThanOrEqual(1);
      expect(sample(text, 'sps_publish_outcomes_total', { ...platform, outcome: 'failed', error_class: 'permanent' }))
        .toBe(1);
      expect(sample(text, 'sps_job_duration_seconds_count', { ...platform, queue: 'publish', outcome: 'completed' }))
        .toBeGreaterThanOrEqual(1);
      expect(sample(text, 'sps_queue_jobs', { queue: 'publish', state: 'failed', process: 'workers' }))
        .toBeGreaterThanOrEqual(1);
    } finally {
      await http.close();
      await redis.quit();
    }
  });

  it('counts token refreshes by platform and outcome', async () => {
    const metrics = new SpsMetrics('workers');
    const tokens = { accessToken: 'new', refreshToken: null, expiresAt: null };
    const request = { provider: 'x', refreshToken: 'r', instanceUrl: null, now: new Date() };
    const works = countedRefresher(() => Promise.resolve(tokens), 'x', metrics);
    const revoked = countedRefresher(() => Promise.reject(new PlatformError({
      kind: 'disconnected', provider: 'x', message: 'invalid_grant',
    })), 'x', metrics);
    await works?.(request);
    await expect(revoked?.(request)).rejects.toThrow('invalid_grant');
    const text = await metrics.render();
    expect(sample(text, 'sps_token_refreshes_total', { platform: 'x', outcome: 'refreshed' })).toBe(1);
    expect(sample(text, 'sps_token_refreshes_total', { platform: 'x', outcome: 'disconnected' })).toBe(1);
  });
});
