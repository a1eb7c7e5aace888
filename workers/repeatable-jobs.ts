import type { Queue } from 'bullmq';
import type { RedisConnection } from '../shared/queue/redis.ts';
import { LogEvent } from '../shared/logging/events.ts';
import type { Logger } from '../shared/logging/logger.ts';

export interface RepeatableJob {
  name: string;
  everyMs: number;
}

/** Repeatable runs are short and frequent: a hundred of each kept is history enough for Bull Board. */
const runOptions = { removeOnComplete: 100, removeOnFail: 100 };

/**
 * Schedules the queue's repeatable jobs now and again on every reconnection: a Redis that comes
 * back without its data has forgotten them, and with them the sweeps that recover lost work.
 * Upserting a scheduler is idempotent, so every process serving the queue does it. Returns the
 * function that stops listening for reconnections.
 */
export async function keepRepeatableJobs(
  queue: Queue,
  repeatable: readonly RepeatableJob[],
  connection: RedisConnection,
  logger: Logger,
): Promise<() => void> {
  if (repeatable.length === 0) return () => undefined;
  const upsert = async (): Promise<void> => {
    for (const { name, everyMs } of repeatable)
      await queue.upsertJobScheduler(name, { every: everyMs }, { name, data: {}, opts: runOptions });
  };
  await upsert();
  const onReady = (): void => {
    upsert().catch((error: unknown) => {
      logger.error({ event: LogEvent.workerError, queue: queue.name, err: error }, 'job schedulers not restored');
    });
  };
  connection.on('ready', onReady);
  return () => { connection.off('ready', onReady); };
}
