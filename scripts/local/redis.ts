import { execFileSync } from 'node:child_process';
import { ensureDebianPackage } from './system-package.ts';
import { portIsOpen, waitForPort } from './wait-for-port.ts';

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Starts a throwaway local Redis (no persistence) when REDIS_URL points at this machine and nothing answers. */
export async function ensureRedis(redisUrl: string, log: (line: string) => void): Promise<void> {
  const url = new URL(redisUrl);
  const host = url.hostname;
  const port = Number(url.port || 6379);
  if (await portIsOpen(host, port)) return;
  if (!loopbackHosts.has(host)) throw new Error(`Redis at ${host}:${port} does not answer; check REDIS_URL`);
  ensureDebianPackage('redis-server', 'redis-server', log);
  log(`starting redis-server on ${host}:${port}...`);
  execFileSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'inherit' });
  await waitForPort('127.0.0.1', port, { timeoutMs: 10_000, what: 'redis-server' });
}
