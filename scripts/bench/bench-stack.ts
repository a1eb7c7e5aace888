import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { SecretBox } from '../../shared/crypto/secret-box.ts';
import { QueueName } from '../../shared/queue/queues.ts';
import { MastodonSimulator } from '../../test/simulators/mastodon/mastodon-simulator.ts';
import { freePort } from '../../test/support/free-port.ts';
import { projectRoot } from '../local/local-environment.ts';
import { apiNodeFlags, apiProcessEnvironment } from '../local/api-process.ts';
import type { BenchServers } from './bench-servers.ts';
import {
  addBenchChannel, clearTenantWork, closeBenchTenant, createBenchTenant, type BenchTenant,
} from './bench-tenant.ts';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';

/** Queue names of the baselines, under the main tenant's prefix, apart from SPS's queues. */
export const bareQueues = {
  posts: 'bare-posts',
  publish: 'bare-publish',
  slowPublish: 'bare-publish-slow',
  durablePublish: 'bare-publish-durable',
} as const;

/**
 * Platform calls one worker makes at once, SPS and baseline alike. The bench's posts are all on one
 * Mastodon channel: SPS's workers get this many slots, all of them Mastodon's (by default a platform
 * gets half the slots, 3 of 5), and PUBLISH_ACCOUNT_CONCURRENCY (5) lets the one account use them.
 */
export const publishConcurrency = 5;

/** How long the slow simulator takes to answer `POST /api/v1/statuses` (issue 16's publish jobs/s). */
export const platformDelayMs = 20;

/** Channels of the benchmark organization: the one posts go to, the slow one, and a few more for its list. */
export const benchChannels = 5;

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
  /** A second simulator answering statuses after `platformDelayMs`, for publish jobs/s. */
  slowSimulator: MastodonSimulator;
  /** The main organization's channel on the slow simulator. */
  slowChannelId: string;
  /** `http://127.0.0.1:<port>/api/public/v1` */
  apiUrl: string;
  /** The bare server's origin (`POST /posts`, `GET /integrations`). */
  bareUrl: string;
  /**
   * `publish` is served by the bare worker posting to the simulator, `slowPublish` by one posting to
   * the slow one, `durablePublish` by the durable worker (reads and writes the post, as SPS must).
   */
  bareQueues: { posts: Queue; publish: Queue; slowPublish: Queue; durablePublish: Queue };
  processes: ServiceProcess[];
  /** What every SPS process of the run is started with (servers, secrets key, log level). */
  serviceEnv: NodeJS.ProcessEnv;
  /** Where the processes' logs go. */
  workDir: string;
  /** The connection the bench process's queues use. */
  connection: Redis;
  close(): Promise<void>;
}

/** Mastodon's own throttles (300 statuses per 3 hours) would stop the measures after a few hundred posts. */
const unlimited = { limit: Number.MAX_SAFE_INTEGER, periodMs: 60_000 };

/**
 * Starts the two simulators in this process and, on the run's servers: SPS's api (with its
 * production node flags) and a workers process (publish queue) per tenant, the bare post server
 * (same flags) and a bare publish worker per simulator.
 */
export async function startBenchStack(
  servers: BenchServers,
  workDir: string,
  log: (line: string) => void,
): Promise<BenchStack> {
  const rateLimits = { api: unlimited, media: unlimited, statuses: unlimited };
  const simulator = new MastodonSimulator({ rateLimits });
  await simulator.start();
  const token = simulator.addAccount('bench');
  const slowSimulator = new MastodonSimulator({ rateLimits, responseDelayMs: platformDelayMs });
  await slowSimulator.start();
  const slowToken = slowSimulator.addAccount('bench');
  const secretsKey = randomBytes(32).toString('hex');
  const secrets = new SecretBox(Buffer.from(secretsKey, 'hex'));
  const connection = new Redis(servers.redisUrl, { maxRetriesPerRequest: null });
  const tenant = (database: string, queuePrefix: string): Promise<BenchTenant> => createBenchTenant({
    mongoUrl: `${servers.mongoRootUrl}${database}`, queuePrefix, secrets, connection,
    instanceUrl: simulator.origin, token,
  });
  const main = await tenant('sps', servers.queuePrefix);
  const small = await tenant('sps_small', `${servers.queuePrefix}-small`);
  const slowChannelId = await addBenchChannel(main, secrets, {
    name: 'Bench on the slow simulator', instanceUrl: slowSimulator.origin, token: slowToken,
  });
  for (let number = 3; number <= benchChannels; number += 1) {
    const account = `bench${number}`;
    await addBenchChannel(main, secrets, {
      name: `Bench ${number}`, instanceUrl: simulator.origin, token: simulator.addAccount(account),
    });
  }
  const bare = { prefix: servers.queuePrefix, connection };
  const queues = {
    posts: new Queue(bareQueues.posts, bare), publish: new Queue(bareQueues.publish, bare),
    slowPublish: new Queue(bareQueues.slowPublish, bare), durablePublish: new Queue(bareQueues.durablePublish, bare),
  };

  const apiPort = await freePort();
  const barePort = await freePort();
  const common: NodeJS.ProcessEnv = {
    ...process.env, MONGO_URL: main.mongoUrl, REDIS_URL: servers.redisUrl, QUEUE_PREFIX: main.queuePrefix,
    SECRETS_KEY: secretsKey, LOG_LEVEL: 'info', UPLOADS_DIR: path.join(workDir, 'uploads'),
  };
  const workers: NodeJS.ProcessEnv = {
    ...common, WORKER_QUEUES: QueueName.publish, PUBLISH_CONCURRENCY: String(publishConcurrency),
    PUBLISH_PLATFORM_CONCURRENCY: `mastodon=${publishConcurrency}`, ALLOW_PRIVATE_NETWORK: 'true',
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
    await Promise.all([simulator.stop(), slowSimulator.stop()]);
  };
  const script = (file: string): string => path.join(projectRoot, file);
  try {
    log('starting the api, two workers processes and the four baselines...');
    await start('api', [...apiNodeFlags, script('api/main.ts')], {
      ...common, ...apiProcessEnvironment, PORT: String(apiPort), PUBLIC_API_RATE_LIMIT: '1000000000',
    }, /api listening/);
    await start('workers', [script('workers/main.ts')], workers, /workers running/);
    await start('workers small', [script('workers/main.ts')], {
      ...workers, MONGO_URL: small.mongoUrl, QUEUE_PREFIX: small.queuePrefix,
    }, /workers running/);
    await start('bare post server', [...apiNodeFlags, script('scripts/bench/baselines/bare-post-server.ts')], {
      ...common, ...apiProcessEnvironment, PORT: String(barePort), BARE_QUEUE: bareQueues.posts,
      BARE_ORGANIZATION_ID: main.organizationId,
    }, /bare post server listening/);
    const bareWorker = script('scripts/bench/baselines/bare-publish-worker.ts');
    await start('bare publish worker', [bareWorker], {
      ...common, BARE_QUEUE: bareQueues.publish, PUBLISH_CONCURRENCY: String(publishConcurrency),
      SIMULATOR_URL: simulator.origin, SIMULATOR_TOKEN: token,
    }, /bare publish worker running/);
    await start('bare publish worker slow', [bareWorker], {
      ...common, BARE_QUEUE: bareQueues.slowPublish, PUBLISH_CONCURRENCY: String(publishConcurrency),
      SIMULATOR_URL: slowSimulator.origin, SIMULATOR_TOKEN: slowToken,
    }, /bare publish worker running/);
    await start('durable publish worker', [script('scripts/bench/baselines/durable-publish-worker.ts')], {
      ...common, BARE_QUEUE: bareQueues.durablePublish, PUBLISH_CONCURRENCY: String(publishConcurrency),
      SIMULATOR_URL: simulator.origin, SIMULATOR_TOKEN: token,
    }, /durable publish worker running/);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    main, small, secrets, simulator, slowSimulator, slowChannelId, processes, close, bareQueues: queues,
    serviceEnv: common, workDir, connection,
    apiUrl: `http://127.0.0.1:${apiPort}/api/public/v1`,
    bareUrl: `http://127.0.0.1:${barePort}`,
  };
}

/** Back to the sizes the table says: the measures' posts, notifications and pending jobs removed. */
export async function clearBenchWork(stack: BenchStack): Promise<void> {
  await Promise.all([clearTenantWork(stack.main), clearTenantWork(stack.small)]);
  await Promise.all(Object.values(stack.bareQueues).map((queue) => queue.drain(true)));
}
