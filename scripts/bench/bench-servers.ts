import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freePort } from '../../test/support/free-port.ts';
import { startFerretDb } from '../local/ferretdb.ts';
import { dropFerretDbDatabase } from '../local/ferretdb-postgres.ts';
import { ensureLocalPostgres } from '../local/postgres.ts';
import { ensureRedis } from '../local/redis.ts';

/** The servers one benchmark run owns: a FerretDB over a PostgreSQL database of its own, and a key prefix on Redis. */
export interface BenchServers {
  id: string;
  /** FerretDB root URL (ends in `/`); append a database name. */
  mongoRootUrl: string;
  redisUrl: string;
  queuePrefix: string;
  /**
   * VACUUM ANALYZE on the PostgreSQL database under FerretDB. A database that grew over months has
   * been vacuumed and analyzed by autovacuum; one seeded in a minute has not, and autovacuum would
   * otherwise start on it in the middle of a measure.
   */
  vacuumAnalyze(): Promise<void>;
  /** Stops FerretDB, drops its PostgreSQL database and deletes the run's Redis keys (all starting with the prefix). */
  stop(): Promise<void>;
}

const postgresRoot = 'postgres://postgres@127.0.0.1:5432';

/**
 * A FerretDB of its own on a free port, so the benchmark neither reads nor grows the database
 * `npm start` uses, and its measurements are not disturbed by another process's queries on it.
 */
export async function startBenchServers(workDir: string, log: (line: string) => void): Promise<BenchServers> {
  const id = randomBytes(4).toString('hex');
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  await ensureRedis(redisUrl, log);
  const postgresUrl = `${postgresRoot}/sps_bench_${id}`;
  await ensureLocalPostgres(postgresUrl, log);
  const dataDir = path.join(workDir, 'ferretdb');
  mkdirSync(dataDir, { recursive: true });
  const ferret = await startFerretDb({
    host: '127.0.0.1',
    port: await freePort(),
    backend: { kind: 'postgresql', url: postgresUrl },
    dataDir,
    detached: false,
    logFile: path.join(workDir, 'ferretdb.log'),
  }, log);
  const queuePrefix = `sps-bench-${id}`;
  return {
    id,
    mongoRootUrl: ferret.url,
    redisUrl,
    queuePrefix,
    async vacuumAnalyze() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query('VACUUM ANALYZE');
      } finally {
        await client.end();
      }
    },
    async stop() {
      const child = ferret.child;
      if (child !== null && child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await dropFerretDbDatabase(postgresUrl);
      // `*` rather than `:*`: the upload benchmark's keys are under `<prefix>-upload:`.
      await deleteKeys(redisUrl, `${queuePrefix}*`);
    },
  };
}

/** Removes every key matching `pattern` (SCAN, never KEYS, so a shared Redis is not blocked). */
async function deleteKeys(redisUrl: string, pattern: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
