import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds: from a fast API answer to a long video upload. */
const requestBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const jobBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

/** How one job ended, as the job-duration histogram and the publish counter name it. */
export type JobOutcome = 'completed' | 'failed' | 'retrying' | 'delayed';

/**
 * The metrics of one process (api or workers), in a registry of its own: the tests run the api
 * and the workers in one process, and prom-client's global registry would refuse the same name
 * twice. Names are documented in docs/operating.md.
 */
export class SpsMetrics {
  readonly registry = new Registry();

  /** api: every answered request, by route pattern (never the raw path: ids would explode the series). */
  readonly httpDuration = new Histogram({
    name: 'sps_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: requestBuckets,
    registers: [this.registry],
  });

  /** workers: every job run, by queue, platform (publish and platform-call jobs) and outcome. */
  readonly jobDuration = new Histogram({
    name: 'sps_job_duration_seconds',
    help: 'Time one job run took, by queue, platform and outcome',
    labelNames: ['queue', 'platform', 'outcome'] as const,
    buckets: jobBuckets,
    registers: [this.registry],
  });

  /** workers: what each publish attempt came to, with the error's class when it did not publish. */
  readonly publishOutcomes = new Counter({
    name: 'sps_publish_outcomes_total',
    help: 'Publish attempts by platform, outcome and error class (none when published)',
    labelNames: ['platform', 'outcome', 'error_class'] as const,
    registers: [this.registry],
  });

  /** Token refreshes by platform and outcome (refreshed, disconnected, retryable, failed). */
  readonly tokenRefreshes = new Counter({
    name: 'sps_token_refreshes_total',
    help: 'OAuth token refreshes by platform and outcome',
    labelNames: ['platform', 'outcome'] as const,
    registers: [this.registry],
  });

  constructor(processName: 'api' | 'workers') {
    this.registry.setDefaultLabels({ process: processName });
    collectDefaultMetrics({ register: this.registry, prefix: 'sps_' });
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
