import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFerretDb } from './ferretdb.ts';
import { ensureLocalPostgres } from './postgres.ts';
import { ensureRedis } from './redis.ts';

export const projectRoot = path.resolve(import.meta.dirname, '..', '..');
export const dataDir = path.join(projectRoot, 'data');

const localMongoPort = 27017;

/** Where the embedded FerretDB keeps its documents: the local PostgreSQL the auth server uses too. */
export const localFerretDbPostgresUrl = 'postgres://postgres@127.0.0.1:5432/sps_ferretdb';

/** The SQLite file an earlier version's embedded default wrote; its data is moved by `npm run db:migrate-sqlite`. */
export const legacySqliteFile = path.join(dataDir, 'ferretdb', 'sps.sqlite');

/** The local secrets key is made once and kept in data/, so restarts can still open sealed tokens. */
function localSecretsKey(): string {
  const file = path.join(dataDir, 'secrets.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('hex');
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/**
 * The embedded defaults: fills in what the environment leaves unset and starts the local
 * services it points at (Redis, and FerretDB on the local PostgreSQL when MONGO_URL is unset). Values already set are
 * used as they are.
 */
export async function prepareLocalEnvironment(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<NodeJS.ProcessEnv> {
  const prepared: NodeJS.ProcessEnv = { ...env };
  prepared.SECRETS_KEY ??= localSecretsKey();
  prepared.REDIS_URL ??= 'redis://127.0.0.1:6379';
  // A Redis Cluster is the operator's to run: no local Redis is started in its place.
  if ((prepared.REDIS_CLUSTER_NODES ?? '').trim() === '') await ensureRedis(prepared.REDIS_URL, log);
  if (prepared.MONGO_URL === undefined || prepared.MONGO_URL === '') {
    const postgresUrl = prepared.FERRETDB_POSTGRESQL_URL ?? localFerretDbPostgresUrl;
    await ensureLocalPostgres(postgresUrl, log);
    if (existsSync(legacySqliteFile)) {
      log(
        `${legacySqliteFile} holds data from an earlier version (SQLite backend); `
        + 'move it with: npm run db:migrate-sqlite',
      );
    }
    const ferret = await startFerretDb({
      host: '127.0.0.1',
      port: localMongoPort,
      backend: { kind: 'postgresql', url: postgresUrl },
      dataDir: path.join(dataDir, 'ferretdb'),
      detached: true,
      logFile: path.join(dataDir, 'ferretdb.log'),
    }, log);
    prepared.MONGO_URL = `${ferret.url}sps`;
  }
  return prepared;
}
