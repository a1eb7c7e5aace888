import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { waitForPort } from '../../scripts/local/wait-for-port.ts';
import { freePort } from './free-port.ts';

const run = promisify(execFile);
const redisServer = '/usr/bin/redis-server';
const redisCli = '/usr/bin/redis-cli';

/** How long a node may be silent before the others count it failed; failover follows within about twice this. */
const nodeTimeoutMs = 1_000;

/** One line of CLUSTER NODES, as the node asked sees the cluster. */
export interface ClusterNodeView {
  id: string;
  port: number;
  primary: boolean;
  failed: boolean;
  /** The primary's id for a replica; null for a primary. */
  primaryId: string | null;
  /** Slot ranges served, as [first, last]; empty for a replica. */
  slots: [number, number][];
}

/**
 * A Redis Cluster of this test file's own: 3 primaries and 3 replicas of Debian's redis-server on
 * free loopback ports (client and cluster-bus ports both chosen, so files run side by side), in a
 * temporary folder, keeping nothing on disk. Started by the files that use it, disposed after.
 */
export interface LocalRedisCluster {
  /** The seeds, as REDIS_CLUSTER_NODES takes them. */
  readonly seeds: string;
  readonly ports: readonly number[];
  /** The cluster as a node still running sees it now. */
  nodes(): Promise<ClusterNodeView[]>;
  /** The port of the primary serving `key`'s slot (a hash tag decides it). */
  primaryOf(key: string): Promise<number>;
  /** SIGKILLs the node on `port` (a crash) and waits until its process is gone. */
  kill(port: number): Promise<void>;
  /** Waits until a replica of the killed primary on `port` serves its slots and every live node says ok; its port. */
  promotedAfter(port: number, timeoutMs?: number): Promise<number>;
  /**
   * When the node on `port` last won a failover election (became a primary), read from its log: a
   * failover's duration without asking the nodes meanwhile. Null when it never did.
   */
  electionWonAt(port: number): Date | null;
  dispose(): Promise<void>;
}

/** Asks one node with redis-cli; an answer within 2 s or an error. */
async function ask(port: number, ...command: string[]): Promise<string> {
  const { stdout } = await run(redisCli, ['-h', '127.0.0.1', '-p', String(port), ...command], { timeout: 2_000 });
  return stdout;
}

function parseNodes(text: string): ClusterNodeView[] {
  return text.trim().split('\n').filter((line) => line !== '').map((line) => {
    const [id = '', address = '', flags = '', primaryId = '-', , , , , ...slotFields] = line.split(' ');
    const flagList = flags.split(',');
    const slots = slotFields
      .filter((field) => !field.startsWith('['))
      .map((field): [number, number] => {
        const [first = '', last = first] = field.split('-');
        return [Number(first), Number(last)];
      });
    return {
      id,
      port: Number(/:(\d+)@/.exec(address)?.[1] ?? 0),
      primary: flagList.includes('master'),
      failed: flagList.includes('fail'),
      primaryId: primaryId === '-' ? null : primaryId,
      slots,
    };
  });
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The time a redis-server log line starts with (`30492:S 28 Nov 2026 13:28:50.561 # ...`); null for another line. */
function logLineTime(line: string): Date | null {
  const pattern = /^\d+:[A-Z] (\d+) (\w{3}) (\d{4}) (\d{2}:\d{2}:\d{2}\.\d{3}) /;
  const [, day = '', month = '', year = '', time = ''] = pattern.exec(line) ?? [];
  const monthIndex = months.indexOf(month);
  if (monthIndex < 0) return null;
  // Without an offset JavaScript reads it as local time, which is what redis-server wrote.
  return new Date(`${year}-${String(monthIndex + 1).padStart(2, '0')}-${day.padStart(2, '0')}T${time}`);
}

/** Polls `check` every 100 ms until it answers something other than undefined. */
async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      // A node still starting or just killed refuses the question: asked again on the next round.
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`Redis Cluster: timed out waiting for ${what}${cause}`);
    }
    await sleep(100);
  }
}

/** `count` distinct free ports (the OS may hand one out twice in a row). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

function startNode(dir: string, port: number, busPort: number): ChildProcess {
  return spawn(redisServer, [
    '--bind', '127.0.0.1', '--port', String(port), '--cluster-port', String(busPort),
    '--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${port}.conf`),
    '--cluster-node-timeout', String(nodeTimeoutMs),
    '--appendonly', 'no', '--save', '', '--dir', dir, '--logfile', path.join(dir, `redis-${port}.log`),
    // BullMQ needs every key kept.
    '--maxmemory-policy', 'noeviction',
  ], { stdio: 'ignore' });
}

function killNow(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  child.kill('SIGKILL');
  return exited;
}

/** Is every node of `ports` in a cluster that is ok, knows all the others, with each replica's link up? */
async function settled(ports: readonly number[]): Promise<true | undefined> {
  for (const port of ports) {
    const info = await ask(port, 'cluster', 'info');
    const knowsAll = info.includes(`cluster_known_nodes:${String(ports.length)}`);
    if (!info.includes('cluster_state:ok') || !knowsAll) return undefined;
    const replication = await ask(port, 'info', 'replication');
    if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return undefined;
  }
  return true;
}

export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-redis-cluster-'));
  // Six client ports and six cluster-bus ports: the default bus port (client + 10000) may be taken.
  const allPorts = await distinctFreePorts(12);
  const ports = allPorts.slice(0, 6);
  const busPorts = allPorts.slice(6);
  const children = new Map<number, ChildProcess>();
  // A test process that dies without its afterAll must not leave six servers behind.
  const killAllOnExit = (): void => { for (const child of children.values()) child.kill('SIGKILL'); };
  process.once('exit', killAllOnExit);
  const dispose = async (): Promise<void> => {
    process.off('exit', killAllOnExit);
    await Promise.all([...children.values()].map(killNow));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    ports.forEach((port, index) => { children.set(port, startNode(dir, port, busPorts[index] ?? 0)); });
    await Promise.all(ports.map((port) => waitForPort('127.0.0.1', port, {
      timeoutMs: 10_000, what: `cluster redis-server ${String(port)}`,
      isAlive: () => children.get(port)?.exitCode === null,
    })));
    await run(redisCli, [
      '--cluster', 'create', ...ports.map((port) => `127.0.0.1:${String(port)}`),
      '--cluster-replicas', '1', '--cluster-yes',
    ], { timeout: 30_000 });
    await until('every node to say cluster_state:ok', 20_000, () => settled(ports));
  } catch (error) {
    await dispose();
    throw error;
  }

  /** The replicas each killed primary had when it was killed: one of them takes its slots over. */
  const replicasOf = new Map<number, number[]>();
  const live = (): number[] => ports.filter((port) => {
    const child = children.get(port);
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  });
  const nodes = async (): Promise<ClusterNodeView[]> => {
    const [asked] = live();
    if (asked === undefined) throw new Error('Redis Cluster: no node is running');
    return parseNodes(await ask(asked, 'cluster', 'nodes'));
  };

  return {
    seeds: ports.map((port) => `127.0.0.1:${String(port)}`).join(','),
    ports,
    nodes,
    async primaryOf(key) {
      const [asked] = live();
      if (asked === undefined) throw new Error('Redis Cluster: no node is running');
      const slot = Number((await ask(asked, 'cluster', 'keyslot', key)).trim());
      const owner = (await nodes()).find((node) => node.primary && !node.failed
        && node.slots.some(([first, last]) => slot >= first && slot <= last));
      if (owner === undefined) throw new Error(`Redis Cluster: no primary serves slot ${String(slot)}`);
      return owner.port;
    },
    async kill(port) {
      const child = children.get(port);
      if (child === undefined) throw new Error(`Redis Cluster: no node on port ${String(port)}`);
      const views = await nodes();
      const killedId = views.find((node) => node.port === port)?.id;
      replicasOf.set(port, views.filter((node) => node.primaryId === killedId).map((node) => node.port));
      await killNow(child);
    },
    promotedAfter(port, timeoutMs = 15_000) {
      return until(`a replica of ${String(port)} to be promoted`, timeoutMs, async () => {
        const views = await nodes();
        if (views.find((node) => node.port === port)?.failed !== true) return undefined;
        const replicas = replicasOf.get(port) ?? [];
        const promoted = views.find((node) => replicas.includes(node.port) && node.primary && node.slots.length > 0);
        if (promoted === undefined) return undefined;
        const served = views.filter((node) => node.primary && !node.failed).flatMap((node) => node.slots)
          .reduce((total, [first, last]) => total + last - first + 1, 0);
        if (served !== 16_384) return undefined;
        for (const livePort of live()) {
          if (!(await ask(livePort, 'cluster', 'info')).includes('cluster_state:ok')) return undefined;
        }
        return promoted.port;
      });
    },
    electionWonAt(port) {
      const won = readFileSync(path.join(dir, `redis-${String(port)}.log`), 'utf8').split('\n')
        .filter((line) => line.includes('Failover election won')).at(-1);
      return won === undefined ? null : logLineTime(won);
    },
    dispose,
  };
}
