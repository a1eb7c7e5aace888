import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../test/support/free-port.ts';
import { startFerretDb } from '../local/ferretdb.ts';
import { dropFerretDbDatabase } from '../local/ferretdb-postgres.ts';
import { ensureLocalPostgres } from '../local/postgres.ts';
import { startBenchRedis } from './bench-redis.ts';

/** The servers one benchmark run owns: a FerretDB over a PostgreSQL database of its own, and a Redis. */
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
  /** Stops FerretDB and the run's Redis, and drops its PostgreSQL database. */
  stop(): Promise<void>;
}

const postgresRoot = 'postgres://postgres@127.0.0.1:5432';

/**
 * A FerretDB of its own on a free port, so the benchmark neither reads nor grows the database
 * `npm start` uses, and its measurements are not disturbed by another process's queries on it.
 */
export async function startBenchServers(workDir: string, log: (line: string) => void): Promise<BenchServers> {
  const id = randomBytes(4).toString('hex');
  const redis = await startBenchRedis(workDir, log);
  const redisUrl = redis.url;
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
  }, log).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });
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
      await redis.stop();
    },
  };
}
