import { z } from 'zod';
import { passwordHashLogN } from '../crypto/password.ts';
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

/**
 * The environment's settings. Each one's `.describe()` (or `.meta()`, where the default needs words) is its
 * documentation: docs/configuration.md is rendered from it (`npm run docs:config`) and a test fails when the two
 * differ, so a description is written for operators and put last, on the outermost schema, where zod keeps it.
 */
export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development')
    .describe('`production` makes the dashboard\'s cookies `Secure`: serve it over https (browsers allow http only '
      + 'on localhost).'),
  HOST: z.string().min(1).default('127.0.0.1')
    .describe('Address the api (and the workers\' HTTP port) listens on: `0.0.0.0` in containers.'),
  PORT: z.coerce.number().int().min(0).max(65535).default(5000).describe('The api\'s port.'),
  FRONTEND_URL: z.url().default('http://localhost:5000')
    .describe('Public address of the dashboard: connect forms, pickers, and the OAuth redirect URI '
      + '`FRONTEND_URL/channels/callback/<platform>` registered with each platform.'),
  BACKEND_URL: z.url().default('http://localhost:5000/api')
    .describe('Public address of the backend (ends in `/api`); the OpenAPI document\'s server.'),
  MONGO_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL')
    .default('mongodb://127.0.0.1:27017/sps')
    .describe('MongoDB (or FerretDB) URL, `mongodb://` or `mongodb+srv://`, with the database name. Unset under '
      + '`npm start` and `npm test`: the local FerretDB is built and started, and this URL points at it.'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').default('redis://127.0.0.1:6379')
    .describe('Redis for BullMQ, the caches\' change messages and the rate limits (`redis://` or `rediss://`). '
      + 'With `REDIS_CLUSTER_NODES`, only its user, password and `rediss://` (TLS) are used, for every node.'),
  // The seeds' parsing, and how REDIS_URL's credentials reach every node: shared/queue/redis.ts.
  REDIS_CLUSTER_NODES: redisClusterNodesSchema
    .describe('Comma-separated `host:port` seeds of a Redis Cluster (`10.0.0.5:7000,10.0.0.6:7000`, IPv6 as '
      + '`[::1]:7000`); empty: one Redis at `REDIS_URL`. See "Running on a Redis Cluster" in docs/operating.md.'),
  QUEUE_PREFIX: z.string().regex(/^[a-zA-Z0-9_-]+$/, 'letters, digits, "_" and "-" only').default('sps')
    .describe('Key prefix of every Redis key (letters, digits, `_` and `-`; tests use one per file). On a cluster, '
      + 'BullMQ\'s keys go under `{QUEUE_PREFIX}`, so each queue\'s keys share one slot.'),
  SECRETS_KEY: secretsKey.meta({
    description: '64 hexadecimal characters (32 bytes; `openssl rand -hex 32`). Root key for the AES-256-GCM '
      + 'sealing of platform tokens and API-key copies, and for the HMAC digests of API keys. Changing it makes '
      + 'stored keys and tokens unreadable.',
    defaultInWords: 'none, it is required (`npm start` and the scripts make one once into `data/secrets.key`)',
  }),
  ALLOW_PRIVATE_NETWORK: envBoolean.default(false)
    .describe('`true` lets channels, platform calls to user-given hosts (a Mastodon instance) and upload-from-url '
      + 'reach loopback and private addresses and plain http: for development and tests only.'),
  // The api and the auth server share this setting; auth-server/config.ts reads it without a description.
  TRUST_PROXY_HOPS: trustProxyHopsSchema
    .describe('How many reverse proxies stand in front of the server, each appending to `X-Forwarded-For`. The '
      + 'client address (login and sign-up throttling) is that many entries from the right, and '
      + '`X-Forwarded-Proto` is read the same way; `0` ignores both headers. Set it to exactly the number of '
      + 'proxies: more lets clients choose their address, fewer throttles everyone behind the proxy as one.'),
  // Turned into TRUST_PROXY_HOPS before parsing (withTrustProxyAlias).
  TRUST_PROXY: deprecatedTrustProxySchema
    .describe('Deprecated: `true` means `TRUST_PROXY_HOPS=1` (which wins when both are given). Use '
      + '`TRUST_PROXY_HOPS`.'),
  // Bounds and default: shared/crypto/password.ts, which also refuses stored hashes dearer than the maximum.
  PASSWORD_HASH_LOG_N: z.coerce.number().int().min(passwordHashLogN.min).max(passwordHashLogN.max)
    .default(passwordHashLogN.default)
    .describe('The scrypt cost of new dashboard password hashes, as a power of two (`N = 2^value`, `r = 8`, '
      + 'memory `128 * r * N` bytes: `15` = 32 MiB). Existing hashes keep their own cost, stored with each. Lower '
      + 'it only for tests.'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')
    .describe('pino\'s level. The workers write their lines to stdout asynchronously (flushed on exit and on a '
      + 'crash; a `kill -9` can lose the last ones), the api one write per line.'),
  WORKER_QUEUES: z
    .string()
    .default('publish,platform,media,video,maintenance,analytics,webhook')
    .transform((list) => list.split(',').map((name) => name.trim()).filter(Boolean))
    .describe('Comma-separated queues this worker process serves (scale each on its own): `publish` (due posts), '
      + '`platform` (integration tools and other request/response platform calls), `media` (remote fetches, '
      + 'ffprobe, poster frames), `video` (video generation: narration and ffmpeg encodes), `maintenance` (expired '
      + 'codes and sessions, the sweep that re-queues publish jobs Redis lost, token renewal and the analytics '
      + 'schedule: serve it in at least one process), `analytics` (reading counters from the platforms), '
      + '`webhook` (webhook deliveries and their dispatcher: serve it in at least one process).'),
  // Served by workers/worker-http.ts.
  WORKER_HTTP_PORT: z.coerce.number().int().min(0).max(65_535).optional()
    .describe('Port of the workers\' `/health`, `/ready` and `/metrics` (on `HOST`); unset: the workers serve no '
      + 'HTTP.'),
  /**
   * Refused rather than ignored, so a deployment that relied on it learns at boot why its operators
   * lost the role and how to grant it. Empty is accepted (compose passes it so).
   */
  OPERATOR_EMAILS: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z.undefined({
      error: 'no longer read: a listed email made whoever signed up with it an operator. Once the account '
        + 'exists, run `npm run operator:grant -- --email <address>`, then remove OPERATOR_EMAILS',
    }),
  ).describe('Retired, and refused at start-up when not empty: it made whoever signed up first with a listed '
    + 'email an operator, and sign-up never proves an email. Operators are made with `npm run operator:grant` '
    + '(see docs/operating.md).'),
  ANALYTICS_EVERY_MS: positiveInt.default(6 * 3_600_000)
    .describe('How often every channel\'s analytics are gathered.'),
  ANALYTICS_FRESH_MS: positiveInt.default(12 * 3_600_000)
    .describe('Stored analytics older than this are answered with a new reading requested.'),
  ANALYTICS_POST_DAYS: positiveInt.default(30)
    .describe('Posts published within this many days get their counters read.'),
  ANALYTICS_POSTS_PER_RUN: positiveInt.default(100).describe('Posts per channel and gathering, newest first.'),
  ANALYTICS_PACE_MS: z.coerce.number().int().min(0).default(1_000)
    .describe('Least time between two analytics calls to one platform account.'),
  ANALYTICS_RETENTION_DAYS: positiveInt.default(400)
    .describe('Days of analytics kept; the maintenance job removes older ones.'),
  NOTIFICATION_RETENTION_DAYS: positiveInt.default(90)
    .describe('Days a notification is kept; the maintenance job removes older ones, so `GET /notifications` '
      + 'counts a bounded history.'),
  EVENT_RETENTION_DAYS: positiveInt.default(30)
    .describe('Days an event stays readable from `GET /events` (the feed of the events webhooks send); the '
      + 'maintenance job removes older ones. A client that reads less often than this misses events.'),
  WEBHOOK_DELIVERY_RETENTION_DAYS: positiveInt.default(30)
    .describe('Days a webhook delivery that ended (delivered or failed) stays in the delivery log; pending ones '
      + 'are never removed.'),
  ANALYTICS_CONCURRENCY: positiveInt.default(2).describe('Channels one worker process gathers at once.'),
  // Checked by shared/metrics/metrics-access.ts.
  METRICS_TOKEN: z.preprocess(
    // Compose passes `${METRICS_TOKEN:-}` through as an empty value: that means no token.
    (value) => (value === '' ? undefined : value),
    z.string().min(16, 'at least 16 characters').optional(),
  ).describe('`/metrics` on the api and the workers answers only `Authorization: Bearer <METRICS_TOKEN>`; unset, '
    + 'it answers 403 to everyone.'),
  // The slots themselves: platform-call-slots.ts.
  PUBLISH_CONCURRENCY: positiveInt.default(200)
    .describe('Publishes one worker process has calling platforms at once (from reading the post to the '
      + 'platform\'s last answer), those sending a video aside; at most half of them to one platform unless the '
      + 'platform\'s definition or `PUBLISH_PLATFORM_CONCURRENCY` says otherwise, and '
      + '`PUBLISH_ACCOUNT_CONCURRENCY` at a time per platform account. The process takes twice as many jobs as it '
      + 'has slots (plus one per upload slot in use and one for the next video), so saving results and telling of '
      + 'them never hold a platform slot. '
      + 'Per process: N worker processes make N times as many calls.'),
  PUBLISH_ACCOUNT_CONCURRENCY: positiveInt.default(5)
    .describe('Publishes of one platform account (channels of one account share it) one worker process runs at '
      + 'once, across both pools: one account\'s backlog holds a few slots, never all of them, while many '
      + 'accounts are published side by side.'),
  PUBLISH_UPLOAD_CONCURRENCY: positiveInt.default(20)
    .describe('Publishes that send a video (YouTube, TikTok, X, any video post) one worker process runs at once, '
      + 'in slots of their own so they never hold back text posts; at most half of them to one platform unless '
      + 'told otherwise.'),
  PUBLISH_PLATFORM_CONCURRENCY: platformConcurrencySchema
    .describe('The operator\'s bound per platform on `PUBLISH_CONCURRENCY`\'s slots, comma-separated '
      + '`platform=count` pairs (`warpcast=4,telegram=20`): for a plan above the one the platform\'s definition '
      + 'assumes. Without it, platforms that limit the whole app have the bound their definition documents '
      + '(Telegram 7, Discord 12, Reddit, Warpcast and Google Business 1), the others half the slots; an unknown '
      + 'platform stops the workers at start.'),
  PUBLISH_PLATFORM_UPLOAD_CONCURRENCY: platformConcurrencySchema
    .describe('The same on `PUBLISH_UPLOAD_CONCURRENCY`\'s slots (Reddit and Warpcast default to 1, the others to '
      + 'half).'),
  PUBLISH_ATTEMPTS: positiveInt.default(5).describe('Attempts per publish job before the post is marked failed.'),
  PUBLISH_BACKOFF_MS: positiveInt.default(5_000).describe('First retry delay; it doubles each attempt.'),
  PUBLISH_LOCK_DURATION_MS: positiveInt.default(60_000)
    .describe('Lock of a running publish job, renewed every half of it. It must outlast a Redis blip or an '
      + 'event-loop pause, not a whole publish: a killed worker\'s job is taken over after this (plus the stalled '
      + 'check).'),
  PUBLISH_STALLED_INTERVAL_MS: positiveInt.default(30_000)
    .describe('How often workers look for publish jobs whose worker died.'),
  PUBLISH_MAX_STALLED_COUNT: z.coerce.number().int().min(0).default(2)
    .describe('Take-overs of one job after its worker died before BullMQ fails it (the post is then re-queued, '
      + 'see `PUBLISH_MAX_RECOVERIES`).'),
  PUBLISH_MAX_RECOVERIES: z.coerce.number().int().min(0).default(3)
    .describe('Times a post whose job was lost or failed unsettled is put back in the queue with no part of it '
      + 'published in between before it is failed for good, with a notification; likewise a removal from the '
      + 'platform (DELETE /posts/:id?onPlatform=true), '
      + 'whose parts still pending are then failed.'),
  PUBLISH_SWEEP_EVERY_MS: positiveInt.default(60_000)
    .describe('How often the sweep looks for due posts whose job is gone (lost with Redis\'s data, or failed '
      + 'unsettled); the removal sweep looks as often for removals from the platform whose job is gone.'),
  PUBLISH_SWEEP_GRACE_MS: positiveInt.default(30_000)
    .describe('A post is swept only once it has been due this long, so a job being added right now is left '
      + 'alone; a removal from the platform, once deleted this long.'),
  PUBLISH_SWEEP_BATCH: positiveInt.default(200)
    .describe('Posts the sweep reads per query; the removal sweep reads this many pending removals a run.'),
  PUBLISH_SWEEP_LOOKBACK_HOURS: z.coerce.number().int().min(0).default(24)
    .describe('How far back each sweep looks for due posts, one hour per query (further, to the last sweep, after '
      + 'a pause), never reading the future schedule. A job lost more than this after its post fell due is found '
      + 'when the workers next start: their first sweep reads every queued post.'),
  TOKEN_REFRESH_EVERY_MS: positiveInt.default(5 * 60_000)
    .describe('How often the token sweep renews the OAuth access tokens about to expire.'),
  // Longer than the sweep's interval, so a token is renewed before it lapses between two sweeps.
  TOKEN_REFRESH_AHEAD_MS: positiveInt.default(15 * 60_000)
    .describe('A token expiring within this long is renewed, by the sweep and before any use.'),
  TOKEN_REFRESH_BATCH: positiveInt.default(200).describe('Channels the token sweep renews per run.'),
  PUBLISH_MAX_RETRY_AFTER_MS: positiveInt.default(60 * 60 * 1000)
    .describe('A platform\'s rate-limit reset (429, "try again at") delays the job by at most this much.'),
  PUBLISH_MAX_RATE_LIMIT_DELAYS: positiveInt.default(10)
    .describe('Times one job may be delayed by a platform\'s rate limit before a 429 counts as a failed attempt.'),
  PUBLISH_SHUTDOWN_GRACE_MS: positiveInt.default(120_000)
    .describe('On SIGTERM, how long running publishes may take to finish (a video upload takes over a minute); '
      + 'the process waits this, plus 30% of `SHUTDOWN_TIMEOUT_MS` for connections.'),
  PLATFORM_TIMEOUT_MS: positiveInt.default(15_000).describe('Time limit of one call to a platform.'),
  PLATFORM_CONCURRENCY: positiveInt.default(10).describe('Platform calls one worker process runs at once.'),
  PLATFORM_CALL_WAIT_MS: positiveInt.default(20_000)
    .describe('How long the api waits for a worker\'s answer to a platform call before answering 504 '
      + '`platform_timeout`.'),
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local')
    .describe('Where media is kept: `local` (files under `UPLOADS_DIR`, served by the api) or `s3` (a bucket, '
      + 'which needs `S3_BUCKET`, `S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY` and `S3_PUBLIC_URL`).'),
  UPLOADS_DIR: z.string().min(1).default('data/uploads')
    .describe('Local driver: where files are written (`YYYY/MM/DD/<random>.<ext>`).'),
  UPLOADS_PUBLIC_URL: z.url().default('http://localhost:5000/uploads')
    .describe('Local driver: public URL of `UPLOADS_DIR` (the api serves its path; S3 objects are served by the '
      + 'bucket, `S3_PUBLIC_URL`). Instagram and Threads fetch media from it, Warpcast casts and Nostr notes link '
      + 'to it: while it is private, their posts with media get 422 `media_not_public`.'),
  S3_BUCKET: z.string().min(3).optional().describe('The bucket; required when `STORAGE_DRIVER=s3`.'),
  S3_REGION: z.string().min(1).default('us-east-1').describe('The bucket\'s region.'),
  S3_ENDPOINT: z.url().optional()
    .describe('Endpoint of an S3-compatible server (MinIO...); unset: AWS.'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional()
    .describe('Access key id of the bucket\'s credentials; required when `STORAGE_DRIVER=s3`.'),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional()
    .describe('Secret access key of the bucket\'s credentials; required when `STORAGE_DRIVER=s3`.'),
  S3_FORCE_PATH_STYLE: envBoolean.default(true)
    .describe('Path-style addressing (`endpoint/bucket/key`), which most S3-compatible servers need.'),
  S3_PUBLIC_URL: z.url().optional()
    .describe('Public base URL of the bucket\'s objects, which platforms fetch media from; required when '
      + '`STORAGE_DRIVER=s3`.'),
  MEDIA_MAX_IMAGE_BYTES: positiveInt.default(10 * 1024 * 1024).describe('Size cap of an uploaded image.'),
  MEDIA_MAX_VIDEO_BYTES: positiveInt.default(1024 * 1024 * 1024).describe('Size cap of an uploaded video.'),
  MEDIA_WAIT_MS: positiveInt.default(30_000)
    .describe('How long `POST /upload` and `POST /upload-from-url` wait for the media worker before answering '
      + '202.'),
  MEDIA_FETCH_CONNECT_TIMEOUT_MS: positiveInt.default(5_000)
    .describe('Upload-from-url: time limit of connecting (TLS handshake included).'),
  MEDIA_FETCH_TOTAL_TIMEOUT_MS: positiveInt.default(120_000)
    .describe('Upload-from-url: time limit of the whole download.'),
  MEDIA_FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).max(10).default(5)
    .describe('Upload-from-url: redirects followed.'),
  MEDIA_CONCURRENCY: positiveInt.default(2).describe('Media jobs one worker process runs at once.'),
  FFPROBE_TIMEOUT_MS: positiveInt.default(30_000)
    .describe('Time limit of every ffprobe and ffmpeg run (inspection, poster frame); the process is killed and '
      + 'the media fails with reason `unreadable_media:timeout`.'),
  FFPROBE_PATH: z.string().min(1).default('ffprobe')
    .describe('The ffprobe command: a name on `PATH` or an absolute path. `npm start` installs Debian\'s `ffmpeg` '
      + 'when neither this nor `FFMPEG_PATH` is set and it is missing; a worker that cannot start it fails '
      + 'uploads with 503 `media_inspection_unavailable`, naming the tool.'),
  FFMPEG_PATH: z.string().min(1).default('ffmpeg')
    .describe('The ffmpeg command (poster frames), as `FFPROBE_PATH`: a name on `PATH` or an absolute path.'),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.default(15 * 60 * 1000)
    .describe('Time for the api to receive a whole request, body included (Node\'s `requestTimeout`); past it the '
      + 'answer is 408 `request_timeout` and an upload in progress is removed. Uploads take the longest: 15 '
      + 'minutes carries a 1 GB video at about 10 Mbit/s.'),
  MAINTENANCE_EVERY_MS: positiveInt.default(10 * 60 * 1000)
    .describe('How often the maintenance job removes expired OAuth codes and sessions, and old notifications, '
      + 'analytics and webhook deliveries.'),
  WEBHOOK_DISPATCH_EVERY_MS: positiveInt.default(60_000)
    .describe('How often the webhook dispatcher (the safety net) looks for deliveries whose job was lost (a Redis '
      + 'without its data, a crash between writing a delivery and queueing it). Deliveries and retries are '
      + 'queued when written, so this bounds only how late a lost one is sent, not how fast deliveries go.'),
  WEBHOOK_DISPATCH_GRACE_MS: positiveInt.default(60_000)
    .describe('How long past its due time a pending delivery waits for its own job before the dispatcher queues '
      + 'it again.'),
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, 'a comma-separated list of milliseconds, e.g. 60000,300000')
    .default('60000,300000,1800000,7200000,21600000,43200000')
    .transform((list) => list.split(',').map((entry) => Number(entry.trim())))
    .refine((waits) => waits.every((wait) => wait > 0 && Number.isSafeInteger(wait)), 'every wait must be above 0')
    .describe('Waits after each failed webhook attempt, comma-separated milliseconds: one retry per entry, then '
      + 'the delivery is failed. The default spreads 7 attempts over about 21 hours.'),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000)
    .describe('Time limit of one webhook attempt: connecting, sending and the receiver\'s answer.'),
  WEBHOOK_CONCURRENCY: positiveInt.default(10).describe('Webhook attempts one worker process makes at once.'),
  PUBLIC_API_RATE_LIMIT: positiveInt.default(30)
    .describe('Requests per window and organization on the public API.'),
  PUBLIC_API_VALIDATE_RATE_LIMIT: positiveInt.default(600)
    .describe('`POST /posts/validate` (dry runs) per window and organization, apart from `PUBLIC_API_RATE_LIMIT` '
      + 'so a dry run never spends what creating posts needs: twenty checks for each post that budget allows.'),
  PUBLIC_API_RATE_WINDOW_SECONDS: positiveInt.default(3600).describe('Length of the public API\'s rate-limit window.'),
  API_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000)
    .describe('Longest an api process trusts its cached credential, channel and webhook-endpoint look-ups without '
      + 'hearing a change over Redis (changes made through SPS reach every api process at once); `0` turns the '
      + 'cache off.'),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000)
    .describe('How long SIGTERM waits for running requests and jobs (publish jobs: `PUBLISH_SHUTDOWN_GRACE_MS`).'),
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
