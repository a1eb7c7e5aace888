import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { SecretBox } from '../../shared/crypto/secret-box.ts';
import { QueueName } from '../../shared/queue/queues.ts';
import { MastodonSimulator } from '../../test/simulators/mastodon-simulator.ts';
import { freePort } from '../../test/support/free-port.ts';
import { projectRoot } from '../local/local-environment.ts';
import { apiNodeFlags } from '../local/node-flags.ts';
import type { BenchServers } from './bench-servers.ts';
import { clearTenantWork, closeBenchTenant, createBenchTenant, type BenchTenant } from './bench-tenant.ts';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';

/** Queue names of the baselines, under the main tenant's prefix, apart from SPS's queues. */
export const bareQueues = { posts: 'bare-posts', publish: 'bare-publish' } as const;

/** Publish jobs one worker runs at once, SPS and baseline alike (SPS's default). */
export const publishConcurrency = 5;

/** Everything the measures talk to: SPS's api and workers, the two baselines, the simulator and the queues. */
export interface BenchStack {
  /** The database that grows from empty to the seeded size; the api and one workers process serve it. */
  main: BenchTenant;
  /**
   * A second database that stays at the small size, with a workers process of its own, so publish
   * jobs on both sizes can be timed in the same minute (the machine's load then weighs on both).
   */
  small: BenchTenant;
  /** Seals and digests with the run's SECRETS_KEY, as the api and workers do. */
  secrets: SecretBox;
  simulator: MastodonSimulator;
  /** `http://127.0.0.1:<port>/api/public/v1` */
  apiUrl: string;
  /** The bare server's `POST /posts`. */
  bareUrl: string;
  bareQueues: { posts: Queue; publish: Queue };
  processes: ServiceProcess[];
  close(): Promise<void>;
}

/** Mastodon's own throttles (300 statuses per 3 hours) would stop the measures after a few hundred posts. */
const unlimited = { limit: Number.MAX_SAFE_INTEGER, periodMs: 60_000 };

/**
 * Starts the simulator in this process and, on the run's servers: SPS's api (with its production
 * node flags) and a workers process (publish queue) per tenant, the bare post server (same flags)
 * and the bare publish worker.
 */
export async function startBenchStack(
  servers: BenchServers,
  workDir: string,
  log: (line: string) => void,
): Promise<BenchStack> {
  const simulator = new MastodonSimulator({ rateLimits: { api: unlimited, media: unlimited, statuses: unlimited } });
  await simulator.start();
  const token = simulator.addAccount('bench');
  const secretsKey = randomBytes(32).toString('hex');
  const secrets = new SecretBox(Buffer.from(secretsKey, 'hex'));
  const connection = new Redis(servers.redisUrl, { maxRetriesPerRequest: null });
  const tenant = (database: string, queuePrefix: string): Promise<BenchTenant> => createBenchTenant({
    mongoUrl: `${servers.mongoRootUrl}${database}`, queuePrefix, secrets, connection,
    instanceUrl: simulator.origin, token,
  });
  const main = await tenant('sps', servers.queuePrefix);
  const small = await tenant('sps_small', `${servers.queuePrefix}-small`);
  const bare = { prefix: servers.queuePrefix, connection };
  const queues = { posts: new Queue(bareQueues.posts, bare), publish: new Queue(bareQueues.publish, bare) };

  const apiPort = await freePort();
  const barePort = await freePort();
  const common: NodeJS.ProcessEnv = {
    ...process.env, MONGO_URL: main.mongoUrl, REDIS_URL: servers.redisUrl, QUEUE_PREFIX: main.queuePrefix,
    SECRETS_KEY: secretsKey, LOG_LEVEL: 'info', UPLOADS_DIR: path.join(workDir, 'uploads'),
  };
  const workers: NodeJS.ProcessEnv = {
    ...common, WORKER_QUEUES: QueueName.publish, PUBLISH_CONCURRENCY: String(publishConcurrency),
    ALLOW_PRIVATE_NETWORK: 'true',
  };
  const processes: ServiceProcess[] = [];
  const start = async (name: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<void> => {
    const logFile = path.join(workDir, `${name.replace(/\W+/g, '-')}.log`);
    processes.push(await startServiceProcess(name, args, env, { ready, logFile }));
  };
  const close = async (): Promise<void> => {
    await Promise.all(processes.map((process) => process.stop()));
    await Promise.all(Object.values(queues).map((queue) => queue.close()));
    await Promise.all([closeBenchTenant(main), closeBenchTenant(small)]);
    connection.disconnect();
    await simulator.stop();
  };
  const script = (file: string): string => path.join(projectRoot, file);
  try {
    log('starting the api, two workers processes and the two baselines...');
    await start('api', [...apiNodeFlags, script('api/main.ts')], {
      ...common, PORT: String(apiPort), PUBLIC_API_RATE_LIMIT: '1000000000',
    }, /api listening/);
    await start('workers', [script('workers/main.ts')], workers, /workers running/);
    await start('workers small', [script('workers/main.ts')], {
      ...workers, MONGO_URL: small.mongoUrl, QUEUE_PREFIX: small.queuePrefix,
    }, /workers running/);
    await start('bare post server', [...apiNodeFlags, script('scripts/bench/baselines/bare-post-server.ts')], {
      ...common, PORT: String(barePort), BARE_QUEUE: bareQueues.posts, BARE_ORGANIZATION_ID: main.organizationId,
    }, /bare post server listening/);
    await start('bare publish worker', [script('scripts/bench/baselines/bare-publish-worker.ts')], {
      ...common, BARE_QUEUE: bareQueues.publish, PUBLISH_CONCURRENCY: String(publishConcurrency),
      SIMULATOR_URL: simulator.origin, SIMULATOR_TOKEN: token,
    }, /bare publish worker running/);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    main, small, secrets, simulator, processes, close, bareQueues: queues,
    apiUrl: `http://127.0.0.1:${apiPort}/api/public/v1`,
    bareUrl: `http://127.0.0.1:${barePort}/posts`,
  };
}

/** Back to the sizes the table says: the measures' posts, notifications and pending jobs removed. */
export async function clearBenchWork(stack: BenchStack): Promise<void> {
  await Promise.all([clearTenantWork(stack.main), clearTenantWork(stack.small)]);
  await Promise.all(Object.values(stack.bareQueues).map((queue) => queue.drain(true)));
}
