import { z } from 'zod';

/** One seed of a Redis Cluster: ioredis asks it for the cluster's layout and finds the other nodes itself. */
export interface ClusterSeed {
  host: string;
  port: number;
}

/** `host:port`, or `[v6 address]:port`; the host holds no spaces, commas or slashes (no URL). */
const seedPattern = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s,:/[\]]+)):(\d{1,5})$/;

function parseSeed(entry: string): ClusterSeed | null {
  const match = seedPattern.exec(entry);
  if (match === null) return null;
  const [, bracketed, named, digits = ''] = match;
  const port = Number(digits);
  if (port < 1 || port > 65_535) return null;
  return { host: bracketed ?? named ?? '', port };
}

/**
 * REDIS_CLUSTER_NODES: comma-separated `host:port` seeds of a Redis Cluster. Empty (the default)
 * means one Redis at REDIS_URL. A malformed entry is named in the boot error, so an operator sees
 * which of several seeds is wrong.
 */
export const redisClusterNodesSchema = z
  .string()
  .default('')
  .transform((list, context): ClusterSeed[] => {
    const entries = list.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
    const seeds: ClusterSeed[] = [];
    for (const entry of entries) {
      const seed = parseSeed(entry);
      if (seed === null) {
        context.addIssue({
          code: 'custom',
          message: `"${entry}" is not host:port (comma-separated seeds, e.g. 10.0.0.5:7000,10.0.0.6:7000; `
            + 'IPv6 as [::1]:7000)',
        });
        return z.NEVER;
      }
      seeds.push(seed);
    }
    return seeds;
  });
