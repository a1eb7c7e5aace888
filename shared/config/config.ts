import { z } from 'zod';
import { platformConcurrencySchema } from './platform-concurrency.ts';
import { redisClusterNodesSchema } from './redis-cluster-nodes.ts';
import { deprecatedTrustProxySchema, trustProxyHopsSchema, withTrustProxyAlias } from './proxy-hops.ts';
import { videoConfigShape } from './video-config.ts';

/** Booleans in the environment are spelled out; anything else is a typo worth stopping on. */
const envBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

const positiveInt = z.coerce.number().int().positive();

/** 32 bytes, given as 64 hex characters: the root of every server-side secret. */
const secretsKey = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters (32 bytes); generate one with `openssl rand -hex 32`')
  .transform((hex) => Buffer.from(hex, 'hex'));

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(5000),
  FRONTEND_URL: z.url().default('http://localhost:5000'),
  BACKEND_URL: z.url().default('http://localhost:5000/api'),
  MONGO_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL').default('mongodb://127.0.0.1:27017/sps'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').default('redis://127.0.0.1:6379'),
  /**
   * Seeds of a Redis Cluster (`host:port,...`); empty: one Redis at REDIS_URL. With seeds, REDIS_URL
   * gives only the user, password and TLS (rediss://) of every node (shared/queue/redis.ts).
   */
  REDIS_CLUSTER_NODES: redisClusterNodesSchema,
  QUEUE_PREFIX: z.string().regex(/^[a-zA-Z0-9_-]+$/, 'letters, digits, "_" and "-" only').default('sps'),
  SECRETS_KEY: secretsKey,
  ALLOW_PRIVATE_NETWORK: envBoolean.default(false),
  /** Proxies in front of the api: the client address is this many X-Forwarded-For entries from the right. */
  TRUST_PROXY_HOPS: trustProxyHopsSchema,
  /** Deprecated alias: `true` means TRUST_PROXY_HOPS=1 (see withTrustProxyAlias). */
  TRUST_PROXY: deprecatedTrustProxySchema,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WORKER_QUEUES: z
    .string()
    .default('publish,platform,media,video,maintenance,analytics,webhook')
    .transform((list) => list.split(',').map((name) => name.trim()).filter(Boolean)),
  /** The workers' /health and /ready port (workers/worker-http.ts); unset: the workers serve no HTTP. */
  WORKER_HTTP_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /**
   * Retired: it made whoever signed up first with a listed email an operator, and sign-up never
   * proves an email. Refused rather than ignored, so a deployment that relied on it learns at boot
   * why its operators lost the role and how to grant it. Empty is accepted (compose passes it so).
   */
  OPERATOR_EMAILS: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z.undefined({
      error: 'no longer read: a listed email made whoever signed up with it an operator. Once the account '
        + 'exists, run `npm run operator:grant -- --email <address>`, then remove OPERATOR_EMAILS',
    }),
  ),
  /** How often every channel's analytics are gathered (6 hours). */
  ANALYTICS_EVERY_MS: positiveInt.default(6 * 3_600_000),
  /** Stored analytics older than this are served with a refresh requested (12 hours). */
  ANALYTICS_FRESH_MS: positiveInt.default(12 * 3_600_000),
  /** Posts published within this many days get their counters read. */
  ANALYTICS_POST_DAYS: positiveInt.default(30),
  /** Posts per channel and gathering, newest first. */
  ANALYTICS_POSTS_PER_RUN: positiveInt.default(100),
  /** Least time between two analytics calls to one platform account. */
  ANALYTICS_PACE_MS: z.coerce.number().int().min(0).default(1_000),
  /** Days of analytics kept; the maintenance job removes older ones. */
  ANALYTICS_RETENTION_DAYS: positiveInt.default(400),
  /** Days a notification is kept; older ones are removed by the maintenance job. */
  NOTIFICATION_RETENTION_DAYS: positiveInt.default(90),
  /** Days a webhook delivery that ended (delivered, or failed) stays in the delivery log. */
  WEBHOOK_DELIVERY_RETENTION_DAYS: positiveInt.default(30),
  /** Channels one worker process gathers at once. */
  ANALYTICS_CONCURRENCY: positiveInt.default(2),
  /**
   * /metrics (api and workers) answers only `Authorization: Bearer <METRICS_TOKEN>`; unset, it
   * answers 403 to everyone (shared/metrics/metrics-access.ts).
   */
  METRICS_TOKEN: z.preprocess(
    // Compose passes `${METRICS_TOKEN:-}` through as an empty value: that means no token.
    (value) => (value === '' ? undefined : value),
    z.string().min(16, 'at least 16 characters').optional(),
  ),
  /**
   * Publishes one worker process has calling platforms at once (from reading the post to the last
   * answer), those that send a video aside; at most half of them to one platform unless its room
   * says otherwise, one per platform account (platform-call-slots.ts). The process takes twice as
   * many jobs as slots (plus one per upload slot), so writing results and telling of them does not hold one.
   */
  PUBLISH_CONCURRENCY: positiveInt.default(200),
  /**
   * Publishes of one platform account one worker process runs at once, across both pools: a burst
   * on one account goes at the pace it did when 5 was the whole process's bound, while many
   * accounts are published side by side.
   */
  PUBLISH_ACCOUNT_CONCURRENCY: positiveInt.default(5),
  /** Publishes that send a video one worker process runs at once, in slots of their own. */
  PUBLISH_UPLOAD_CONCURRENCY: positiveInt.default(20),
  /** The operator's own bound per platform on PUBLISH_CONCURRENCY's slots: `warpcast=4,telegram=20`. */
  PUBLISH_PLATFORM_CONCURRENCY: platformConcurrencySchema,
  /** The same on PUBLISH_UPLOAD_CONCURRENCY's slots. */
  PUBLISH_PLATFORM_UPLOAD_CONCURRENCY: platformConcurrencySchema,
  PUBLISH_ATTEMPTS: positiveInt.default(5),
  PUBLISH_BACKOFF_MS: positiveInt.default(5_000),
  /**
   * A publish job's lock, renewed every half of it while the job runs. It must outlast a Redis
   * blip or an event-loop pause, not a whole publish; a killed worker's job waits this long
   * (plus the stalled check) before another worker takes it over.
   */
  PUBLISH_LOCK_DURATION_MS: positiveInt.default(60_000),
  PUBLISH_STALLED_INTERVAL_MS: positiveInt.default(30_000),
  /** Times a publish job may be taken over after its worker died before BullMQ fails it. */
  PUBLISH_MAX_STALLED_COUNT: z.coerce.number().int().min(0).default(2),
  /** Times a post whose job failed or was lost is put back in the queue before it is failed for good. */
  PUBLISH_MAX_RECOVERIES: z.coerce.number().int().min(0).default(3),
  /** How often the sweep looks for due posts whose job was lost. */
  PUBLISH_SWEEP_EVERY_MS: positiveInt.default(60_000),
  /** A post is swept only when it has been due this long, so a job being added right now is left alone. */
  PUBLISH_SWEEP_GRACE_MS: positiveInt.default(30_000),
  PUBLISH_SWEEP_BATCH: positiveInt.default(200),
  /** How often the token sweep refreshes the access tokens about to expire. */
  TOKEN_REFRESH_EVERY_MS: positiveInt.default(5 * 60_000),
  /**
   * A token expiring within this long is refreshed: by the sweep, and before any use. Longer
   * than the sweep's interval, so a token is renewed before it lapses between two sweeps.
   */
  TOKEN_REFRESH_AHEAD_MS: positiveInt.default(15 * 60_000),
  TOKEN_REFRESH_BATCH: positiveInt.default(200),
  /** A platform's "try again at" (429) delays the job by at most this much. */
  PUBLISH_MAX_RETRY_AFTER_MS: positiveInt.default(60 * 60 * 1000),
  /** Times one job may be delayed by a platform's rate limit before it counts as a failed attempt. */
  PUBLISH_MAX_RATE_LIMIT_DELAYS: positiveInt.default(10),
  /** On SIGTERM, how long a publish in progress may take to finish (a video upload takes over a minute). */
  PUBLISH_SHUTDOWN_GRACE_MS: positiveInt.default(120_000),
  PLATFORM_TIMEOUT_MS: positiveInt.default(15_000),
  PLATFORM_CONCURRENCY: positiveInt.default(10),
  /** How long the api waits for a worker's answer to a platform call before giving up with 504. */
  PLATFORM_CALL_WAIT_MS: positiveInt.default(20_000),
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  UPLOADS_DIR: z.string().min(1).default('data/uploads'),
  /** Where local uploads are served; S3 objects are served by the bucket (S3_PUBLIC_URL). */
  UPLOADS_PUBLIC_URL: z.url().default('http://localhost:5000/uploads'),
  S3_BUCKET: z.string().min(3).optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ENDPOINT: z.url().optional(),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: envBoolean.default(true),
  S3_PUBLIC_URL: z.url().optional(),
  MEDIA_MAX_IMAGE_BYTES: positiveInt.default(10 * 1024 * 1024),
  MEDIA_MAX_VIDEO_BYTES: positiveInt.default(1024 * 1024 * 1024),
  /** How long POST /upload and /upload-from-url wait for the media worker before answering 202. */
  MEDIA_WAIT_MS: positiveInt.default(30_000),
  MEDIA_FETCH_CONNECT_TIMEOUT_MS: positiveInt.default(5_000),
  MEDIA_FETCH_TOTAL_TIMEOUT_MS: positiveInt.default(120_000),
  MEDIA_FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).max(10).default(5),
  MEDIA_CONCURRENCY: positiveInt.default(2),
  /** Time limit of every ffprobe and ffmpeg run (inspection, poster frame); the process is killed at it. */
  FFPROBE_TIMEOUT_MS: positiveInt.default(30_000),
  /** The media tools' commands: names on PATH, or absolute paths where they live elsewhere. */
  FFPROBE_PATH: z.string().min(1).default('ffprobe'),
  FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  /**
   * Time for the api to receive a whole request, body included (Node's requestTimeout). Uploads
   * take the longest: 15 minutes carries a 1 GB video at about 10 Mbit/s.
   */
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.default(15 * 60 * 1000),
  MAINTENANCE_EVERY_MS: positiveInt.default(10 * 60 * 1000),
  /**
   * How often the webhook dispatcher looks for deliveries whose job was lost (a Redis without its
   * data, a crash between writing a delivery and queueing it). Deliveries are queued when written
   * and retries when they fail, so this bounds only how late a lost one is recovered.
   */
  WEBHOOK_DISPATCH_EVERY_MS: positiveInt.default(60_000),
  /** How long past its due time a pending delivery waits for its own job before the dispatcher queues it again. */
  WEBHOOK_DISPATCH_GRACE_MS: positiveInt.default(60_000),
  /**
   * Waits between a failed webhook attempt and the next, comma-separated: one retry per entry,
   * then the delivery is failed. The default spreads 7 attempts over about 21 hours.
   */
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, 'a comma-separated list of milliseconds, e.g. 60000,300000')
    .default('60000,300000,1800000,7200000,21600000,43200000')
    .transform((list) => list.split(',').map((entry) => Number(entry.trim())))
    .refine((waits) => waits.every((wait) => wait > 0 && Number.isSafeInteger(wait)), 'every wait must be above 0'),
  /** Time limit of one webhook attempt: connecting, sending and the receiver's answer. */
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000),
  WEBHOOK_CONCURRENCY: positiveInt.default(10),
  PUBLIC_API_RATE_LIMIT: positiveInt.default(30),
  /**
   * POST /posts/validate's budget per window and organization, apart from PUBLIC_API_RATE_LIMIT so
   * a dry run never spends what creating posts needs: twenty checks for each post the budget allows.
   */
  PUBLIC_API_VALIDATE_RATE_LIMIT: positiveInt.default(600),
  PUBLIC_API_RATE_WINDOW_SECONDS: positiveInt.default(3600),
  /**
   * Longest an api process trusts what it cached (credential to organization, channels) without
   * hearing a change over Redis; changes made through SPS reach every process at once. 0: no cache.
   */
  API_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
  ...videoConfigShape,
});

export type Config = z.infer<typeof configSchema>;

/** Settings that only make sense together. */
function crossFieldProblems(config: Config): string[] {
  if (config.STORAGE_DRIVER !== 's3') return [];
  return (['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_PUBLIC_URL'] as const)
    .filter((name) => config[name] === undefined)
    .map((name) => `${name}: required when STORAGE_DRIVER=s3 (it is not set)`);
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Reads and validates the whole environment once; every problem is reported, not just the first. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(withTrustProxyAlias(env));
  if (result.success) {
    const problems = crossFieldProblems(result.data);
    if (problems.length > 0) throw new ConfigError(problems);
    return result.data;
  }
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join('.') || '(environment)';
    const given = issue.path.length > 0 ? env[String(issue.path[0])] : undefined;
    const shown = given === undefined ? 'it is not set' : `got ${JSON.stringify(variable === 'SECRETS_KEY' ? '<redacted>' : given)}`;
    return `${variable}: ${issue.message} (${shown})`;
  });
  throw new ConfigError(problems);
}
