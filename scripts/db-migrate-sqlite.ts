// `npm run db:migrate-sqlite`: moves the data an earlier version kept in FerretDB's SQLite backend
// (data/ferretdb/sps.sqlite) into today's embedded default, FerretDB on the local PostgreSQL.
// Stop `npm start` and the old FerretDB first (kill $(cat data/ferretdb/ferretdb.pid)).
import { existsSync, renameSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { loadConfig } from '../shared/config/config.ts';
import { openDatabase } from '../shared/db/database.ts';
import { startFerretDb } from './local/ferretdb.ts';
import { dataDir, legacySqliteFile, prepareLocalEnvironment } from './local/local-environment.ts';
import { logToStderr } from './local/run-script.ts';
import { freePort } from '../test/support/free-port.ts';

const batchSize = 1_000;

if (!existsSync(legacySqliteFile)) {
  logToStderr(`nothing to migrate: ${legacySqliteFile} does not exist`);
  process.exit(0);
}

const env = await prepareLocalEnvironment(process.env, logToStderr);
const config = loadConfig(env);
// Opening the database creates the collections and their indexes before any document arrives.
await (await openDatabase(config.MONGO_URL)).close();

const legacy = await startFerretDb({
  host: '127.0.0.1',
  port: await freePort(),
  backend: { kind: 'sqlite', dataDir: path.dirname(legacySqliteFile) },
  dataDir: path.join(dataDir, 'ferretdb-migration'),
  detached: false,
  logFile: path.join(dataDir, 'ferretdb-migration.log'),
}, logToStderr);

const source = new MongoClient(`${legacy.url}sps`);
const target = new MongoClient(config.MONGO_URL);
try {
  await Promise.all([source.connect(), target.connect()]);
  const from = source.db();
  const to = target.db();
  for (const { name } of await from.listCollections({}, { nameOnly: true }).toArray()) {
    const destination = to.collection(name);
    // A collection that already holds documents was migrated (or used) before: never mix the two.
    if ((await destination.estimatedDocumentCount()) > 0) {
      logToStderr(`${name}: the target already has documents; skipped`);
      continue;
    }
    let copied = 0;
    let batch: Record<string, unknown>[] = [];
    for await (const document of from.collection(name).find({})) {
      batch.push(document);
      if (batch.length === batchSize) {
        await destination.insertMany(batch, { ordered: true });
        copied += batch.length;
        batch = [];
      }
    }
    if (batch.length > 0) await destination.insertMany(batch, { ordered: true });
    copied += batch.length;
    logToStderr(`${name}: ${copied} documents copied`);
  }
} finally {
  await Promise.all([source.close(), target.close()]);
  legacy.child?.kill('SIGTERM');
}
renameSync(legacySqliteFile, `${legacySqliteFile}.migrated`);
logToStderr(`done; the old file is kept as ${legacySqliteFile}.migrated`);
