import path from 'node:path';
import { QueueName } from '../../../shared/queue/queues.ts';
import { projectRoot } from '../../local/local-environment.ts';
import type { BenchStack } from '../bench-stack.ts';
import { startServiceProcess, type ServiceProcess } from '../service-process.ts';
import { scaleBareQueue, type ScaleWorld } from './scale-world.ts';

/** The bare worker's concurrency in issue 31's rows: what a plain BullMQ deployment would pick for I/O. */
export const bareScaleConcurrency = 100;

/** Processes started for one measure, stopped together after it. */
export interface ScaleProcesses {
  stop(): Promise<void>;
}

async function startAll(starts: (() => Promise<ServiceProcess>)[]): Promise<ScaleProcesses> {
  const started: ServiceProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((process) => process.stop()));
  };
  try {
    for (const start of starts) started.push(await start());
  } catch (error) {
    await stop();
    throw error;
  }
  return { stop };
}

/**
 * `count` SPS workers processes serving the scale world's publish queue, with SPS's defaults
 * unless `settings` says otherwise (PUBLISH_CONCURRENCY for a latency-bound row).
 */
export function startSpsWorkers(
  stack: BenchStack,
  world: ScaleWorld,
  count: number,
  settings: NodeJS.ProcessEnv = {},
): Promise<ScaleProcesses> {
  return startAll(Array.from({ length: count }, (_, index) => () => startServiceProcess(
    `scale workers ${index + 1}`,
    [path.join(projectRoot, 'workers/main.ts')],
    {
      ...stack.serviceEnv, MONGO_URL: world.mongoUrl, QUEUE_PREFIX: world.queuePrefix,
      WORKER_QUEUES: QueueName.publish, ALLOW_PRIVATE_NETWORK: 'true', ...settings,
    },
    { ready: /workers running/, logFile: path.join(stack.workDir, `scale-workers-${index + 1}.log`) },
  )));
}

/** The bare BullMQ worker at `bareScaleConcurrency`, posting each job to the scale world's simulator. */
export function startBareWorker(stack: BenchStack, world: ScaleWorld): Promise<ScaleProcesses> {
  return startAll([() => startServiceProcess(
    'scale bare worker',
    [path.join(projectRoot, 'scripts/bench/baselines/bare-publish-worker.ts')],
    {
      ...stack.serviceEnv, QUEUE_PREFIX: world.queuePrefix, BARE_QUEUE: scaleBareQueue,
      PUBLISH_CONCURRENCY: String(bareScaleConcurrency),
      SIMULATOR_URL: world.simulator.origin, SIMULATOR_TOKEN: world.bareToken,
    },
    { ready: /bare publish worker running/, logFile: path.join(stack.workDir, 'scale-bare-worker.log') },
  )]);
}
