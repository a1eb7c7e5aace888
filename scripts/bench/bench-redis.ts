import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../../test/support/free-port.ts';
import { ensureDebianPackage } from '../local/system-package.ts';
import { waitForPort } from '../local/wait-for-port.ts';

export interface BenchRedis {
  url: string;
  stop(): Promise<void>;
}

/**
 * A Redis of the run's own, on a free port, keeping nothing on disk. `hz 100`: Redis checks its
 * timers ten times as often as its default 10, so a BullMQ job due now is not held up to 100 ms
 * by Redis, and lateness rows measure SPS, not Redis's clock (issue 31).
 */
export async function startBenchRedis(workDir: string, log: (line: string) => void): Promise<BenchRedis> {
  ensureDebianPackage('redis-server', 'redis-server', log);
  const port = await freePort();
  const logFd = openSync(path.join(workDir, 'redis.log'), 'a');
  const child = spawn('redis-server', [
    '--bind', '127.0.0.1', '--port', String(port), '--hz', '100', '--save', '', '--appendonly', 'no',
  ], { stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  await waitForPort('127.0.0.1', port, { timeoutMs: 10_000, what: 'the benchmark\'s redis-server' });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
