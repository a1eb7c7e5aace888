import { unavailableBackingService } from '../../shared/backing-service-errors.ts';
import { PlatformError } from '../../shared/platforms/kit/platform-error.ts';
import type { JobOutcome, SpsMetrics } from '../../shared/metrics/sps-metrics.ts';

/** The class an error is acted on by: a PlatformError's kind, an unreachable MongoDB/Redis, or a bug. */
export function errorClass(error: Error): string {
  if (error instanceof PlatformError) return error.kind;
  return unavailableBackingService(error) === null ? 'internal' : 'backing_service';
}

/** One publish job run, counted once whichever way it ended. */
export interface PublishRunRecord {
  outcome: JobOutcome;
  /** published, skipped, waiting, or how it did not publish. */
  publishOutcome: 'published' | 'skipped' | 'waiting' | 'rate_limited' | 'retrying' | 'failed';
  platform: string;
  error: Error | null;
}

/** Records a publish run into the job-duration histogram and the publish-outcome counter. */
export function recordPublishRun(metrics: SpsMetrics | undefined, startedAt: number, run: PublishRunRecord): void {
  if (metrics === undefined) return;
  const seconds = (performance.now() - startedAt) / 1000;
  metrics.jobDuration.observe({ queue: 'publish', platform: run.platform, outcome: run.outcome }, seconds);
  const error_class = run.error === null ? 'none' : errorClass(run.error);
  metrics.publishOutcomes.inc({ platform: run.platform, outcome: run.publishOutcome, error_class });
}
