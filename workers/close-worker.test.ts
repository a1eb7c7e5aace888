import { Queue, Worker } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../shared/logging/logger.ts';
import { createRedis } from '../shared/queue/redis.ts';
import { waitFor } from '../test/support/stack.ts';
import { closeWorker } from './close-worker.ts';

describe('closing a worker at shutdown', () => {
  const prefix = `close-worker-${randomBytes(4).toString('hex')}`;
  const logged: string[] = [];
  const logger = createLogger({
    name: 'workers', level: 'info',
    destination: new Writable({ write(chunk: Buffer, _encoding, done) { logged.push(chunk.toString()); done(); } }),
  });
  const workerConnection = createRedis(inject('redisUrl'), 'worker', logger);
  const queueConnection = createRedis(inject('redisUrl'), 'producer', logger);
  const connections = [workerConnection, queueConnection];
  const queue = new Queue('close-me', { connection: queueConnection, prefix });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    await Promise.all(connections.map((connection) => connection.quit()));
  });

  /** A worker whose job runs until `release` is called, holding that job when it resolves. */
  async function workerWithHungJob(): Promise<{ worker: Worker; release: () => void; jobId: string }> {
    let release = (): void => undefined;
    const hung = new Promise<void>((resolve) => { release = resolve; });
    const worker = new Worker('close-me', () => hung, { connection: workerConnection, prefix, lockDuration: 30_000 });
    const job = await queue.add('hang', {});
    const jobId = job.id ?? '';
    await waitFor(async () => ((await queue.getJobState(jobId)) === 'active' ? true : undefined), {
      what: 'the worker to take the job',
    });
    return { worker, release, jobId };
  }

  it('gives up on a job still running at the deadline, says so, and closes at once', async () => {
    const { worker, release, jobId } = await workerWithHungJob();
    const started = Date.now();
    await closeWorker(worker, 300, logger);
    // Before, the forced close waited for the job like the graceful one: here, forever.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(logged.join('')).toContain('handing them back');
    // Still active in Redis: its lock runs out and the stalled check hands it to another worker.
    expect(await queue.getJobState(jobId)).toBe('active');
    release();
  });

  it('lets a job that ends before the deadline finish, and takes no new one meanwhile', async () => {
    logged.length = 0;
    const { worker, release, jobId } = await workerWithHungJob();
    const closing = closeWorker(worker, 20_000, logger);
    const next = await queue.add('after', {});
    setTimeout(release, 200);
    await closing;
    expect(await queue.getJobState(jobId)).toBe('completed');
    expect(await queue.getJobState(next.id ?? '')).toBe('waiting');
    expect(logged.join('')).not.toContain('handing them back');
  });
});
