import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { freePort } from '../../test/support/free-port.ts';
import { startFerretDb, type RunningFerretDb } from './ferretdb.ts';
import { dropFerretDbDatabase } from './ferretdb-postgres.ts';

/**
 * FerretDB 1.24 on PostgreSQL runs an update on two pooled connections at once (it reads the
 * matching rows on one and writes on another while they are open): as many updates at once as
 * its pool has connections each hold one and wait for ever. The wrapper's gate
 * (scripts/ferretdb/gate.go) lets fewer commands through than that. A FerretDB of 4 connections
 * stands in for a busy deployment's 50.
 */
const suitePostgresUrl = inject('ferretdbPostgresUrl');
const poolMaxConns = 4;
const burst = 40;

interface Started {
  ferret: RunningFerretDb;
  client: MongoClient;
  postgresUrl: string;
  dataDir: string;
}

const started: Started[] = [];

async function startSmallFerretDb(maxCommands?: number): Promise<Started> {
  const postgresUrl = new URL(suitePostgresUrl);
  postgresUrl.pathname = `/sps_test_ferretdb_gate_${randomBytes(4).toString('hex')}`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'sps-test-ferretdb-gate-'));
  const backendUrl = `${postgresUrl.toString()}?pool_max_conns=${String(poolMaxConns)}`;
  let ferret: RunningFerretDb;
  try {
    ferret = await startFerretDb({
      host: '127.0.0.1', port: await freePort(), backend: { kind: 'postgresql', url: backendUrl },
      dataDir, detached: false, logFile: path.join(dataDir, 'ferretdb.log'), maxCommands,
    }, () => undefined);
  } catch (error) {
    // The database was made before the server failed to start: nothing else would drop it.
    await dropFerretDbDatabase(postgresUrl.toString());
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const client = new MongoClient(ferret.url, { maxPoolSize: burst, serverSelectionTimeoutMS: 5_000 });
  const entry = { ferret, client, postgresUrl: postgresUrl.toString(), dataDir };
  started.push(entry);
  return entry;
}

/** Whether `burst` updates at once, then as many findOneAndUpdates and deletes, all finish in time. */
async function burstFinishes(client: MongoClient, withinMs: number): Promise<boolean> {
  const items = client.db('gate').collection<{ _id: number; n: number }>('items');
  await items.insertMany(Array.from({ length: burst }, (_, index) => ({ _id: index, n: 0 })));
  const work = (async () => {
    await Promise.all(Array.from({ length: burst }, (_, index) => items.updateOne({ _id: index }, { $inc: { n: 1 } })));
    await Promise.all(Array.from({ length: burst }, (_, index) =>
      items.findOneAndUpdate({ _id: index }, { $inc: { n: 1 } })));
    await Promise.all(Array.from({ length: burst / 2 }, (_, index) => items.deleteOne({ _id: index })));
    return true;
  })();
  const timedOut = new Promise<false>((resolve) => setTimeout(resolve, withinMs, false));
  return Promise.race([work, timedOut]);
}

async function stop(entry: Started): Promise<number> {
  const child = entry.ferret.child;
  const begun = Date.now();
  if (child !== null && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  return Date.now() - begun;
}

afterEach(async () => {
  for (const entry of started.splice(0)) {
    await entry.client.close(true);
    await stop(entry);
    await dropFerretDbDatabase(entry.postgresUrl);
    await rm(entry.dataDir, { recursive: true, force: true });
  }
});

describe.skipIf(suitePostgresUrl === '')('the gate in front of FerretDB', () => {
  it('lets a burst of writes larger than the pool finish', async () => {
    const { client } = await startSmallFerretDb();

    expect(await burstFinishes(client, 15_000)).toBe(true);
    const items = client.db('gate').collection<{ _id: number; n: number }>('items');
    const left = await items.find({}).toArray();
    expect(left).toHaveLength(burst / 2);
    expect(left.every((item) => item.n === 2)).toBe(true);
  });

  it('is why: opened as wide as the pool, the same burst never finishes, and a stop still ends it', async () => {
    const entry = await startSmallFerretDb(burst);

    expect(await burstFinishes(entry.client, 3_000)).toBe(false);
    // FerretDB waits for commands in flight before it stops; the wrapper gives them 5 s.
    expect(await stop(entry)).toBeLessThan(8_000);
  });
});
