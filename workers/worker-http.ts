import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkReadiness, logUnreadiness, type ReadinessDeps } from '../shared/runtime/readiness.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';
import { metricsRefusal } from '../shared/metrics/metrics-access.ts';
import type { SpsMetrics } from '../shared/metrics/sps-metrics.ts';

/** What /metrics serves, and the METRICS_TOKEN it wants (unset: /metrics is closed). */
export interface WorkerMetricsEndpoint {
  metrics: SpsMetrics;
  token: string | undefined;
}

export interface WorkerHttp {
  port: number;
  close(): Promise<void>;
}

/**
 * The workers' small HTTP port (WORKER_HTTP_PORT) for orchestrators: `/health` says the process
 * answers, `/ready` whether what its queues need works, `/metrics` what Prometheus scrapes.
 */
export async function startWorkerHttp(
  listen: { host: string; port: number },
  readiness: ReadinessDeps,
  logger: Logger,
  scrape: WorkerMetricsEndpoint | null = null,
): Promise<WorkerHttp> {
  const server: Server = createServer((request, response) => {
    const reply = (status: number, body: unknown): void => {
      response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
      response.end(JSON.stringify(body));
    };
    const path = new URL(request.url ?? '/', 'http://worker').pathname;
    if (request.method !== 'GET') {
      reply(405, { error: 'method_not_allowed', message: 'only GET is served here' });
    } else if (path === '/health') {
      reply(200, { status: 'ok' });
    } else if (path === '/ready') {
      checkReadiness(readiness).then(
        (outcome) => {
          logUnreadiness(logger, outcome);
          reply(outcome.ready ? 200 : 503, { status: outcome.ready ? 'ready' : 'not_ready', checks: outcome.checks });
        },
        (error: unknown) => {
          logger.error({ event: LogEvent.workerError, err: error }, 'the readiness check failed');
          reply(500, { error: 'internal_error', message: 'the readiness check failed' });
        },
      );
    } else if (path === '/metrics' && scrape !== null) {
      const refusal = metricsRefusal(scrape.token, request.headers.authorization);
      if (refusal !== null) {
        for (const [name, value] of Object.entries(refusal.headers)) response.setHeader(name, value);
        reply(refusal.status, refusal.body);
        return;
      }
      scrape.metrics.render().then(
        (text) => {
          response.writeHead(200, { 'Content-Type': scrape.metrics.contentType, 'Cache-Control': 'no-store' });
          response.end(text);
        },
        (error: unknown) => {
          logger.error({ event: LogEvent.workerError, err: error }, 'the metrics could not be read');
          reply(500, { error: 'internal_error', message: 'the metrics could not be read' });
        },
      );
    } else {
      reply(404, { error: 'not_found', message: 'the workers serve /health, /ready and /metrics' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () => new Promise<void>((resolve, reject) => {
      server.close((error) => { if (error === undefined) resolve(); else reject(error); });
      server.closeAllConnections();
    }),
  };
}
