import { LogEvent } from '../logging/events.ts';
import type { Logger } from '../logging/logger.ts';

export interface ShutdownStep {
  name: string;
  run: () => Promise<unknown>;
}

/**
 * On SIGTERM or SIGINT, runs the steps in order (stop taking work first, close connections
 * last) and exits. A step that fails is logged and the rest still run; a second signal, or the
 * deadline, exits at once.
 */
export function handleShutdown(logger: Logger, steps: ShutdownStep[], deadlineMs: number): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) {
      logger.warn({ event: LogEvent.serviceStopping, signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ event: LogEvent.serviceStopping, signal }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error({ event: LogEvent.serviceStopping, deadlineMs }, 'shutdown deadline passed: exiting');
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
    let failed = false;
    for (const step of steps) {
      try {
        await step.run();
      } catch (error) {
        failed = true;
        logger.error({ event: LogEvent.serviceStopping, step: step.name, err: error }, 'shutdown step failed');
      }
    }
    logger.info({ event: LogEvent.serviceStopped }, 'stopped');
    process.exit(failed ? 1 : 0);
  };
  process.on('SIGTERM', (signal) => { void stop(signal); });
  process.on('SIGINT', (signal) => { void stop(signal); });
}
