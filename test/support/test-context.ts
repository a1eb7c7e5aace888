import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../shared/config/config.ts';
import { SecretBox } from '../../shared/crypto/secret-box.ts';
import { openDatabase, type Database } from '../../shared/db/database.ts';
import { createLogger, type Logger } from '../../shared/logging/logger.ts';

export interface TestContext {
  config: Config;
  /** Every log line the in-process services wrote (JSON), for tests that read the logs. */
  logLines: string[];
  /** The environment a child process (api, workers, scripts) needs to share this file's database and queues. */
  env: NodeJS.ProcessEnv;
  db: Database;
  secrets: SecretBox;
  logger: Logger;
  cleanup(): Promise<void>;
}

/**
 * One database and one queue prefix per test file, so files can run in parallel against the
 * same servers. Call in beforeAll and `cleanup` in afterAll.
 */
export async function createTestContext(overrides: Record<string, string> = {}): Promise<TestContext> {
  const id = randomBytes(5).toString('hex');
  const uploadsDir = mkdtempSync(path.join(tmpdir(), 'sps-uploads-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    MONGO_URL: `${inject('mongoUrl')}sps_test_${id}`,
    REDIS_URL: inject('redisUrl'),
    QUEUE_PREFIX: `sps-test-${id}`,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    ALLOW_PRIVATE_NETWORK: 'true',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    PUBLISH_BACKOFF_MS: '50',
    UPLOADS_DIR: uploadsDir,
    // Tests make many requests per organization; the rate-limit tests set their own limit.
    PUBLIC_API_RATE_LIMIT: '100000',
    // Tests sign up and log in hundreds of times, each 32 MiB hash 0.1-0.16 CPU-s; each hash keeps its own cost.
    PASSWORD_HASH_LOG_N: '10',
    ...overrides,
  };
  const config = loadConfig(env);
  const db = await openDatabase(config.MONGO_URL);
  const logLines: string[] = [];
  return {
    config,
    logLines,
    env,
    db,
    secrets: new SecretBox(config.SECRETS_KEY),
    logger: createLogger({ name: 'test', level: config.LOG_LEVEL, destination: {
      write: (line: string) => {
        logLines.push(line);
        // Asking for a log level (TEST_LOG_LEVEL) also means wanting to see the lines.
        if (process.env.TEST_LOG_LEVEL !== undefined) process.stdout.write(line);
      },
    } }),
    async cleanup() {
      await db.connection.dropDatabase();
      await db.close();
      await deleteQueueKeys(config.REDIS_URL, config.QUEUE_PREFIX);
      rmSync(uploadsDir, { recursive: true, force: true });
    },
  };
}

async function deleteQueueKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}
