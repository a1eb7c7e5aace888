// A Node process the upload benchmark starts (the api, the workers, a bare server or worker):
// started from the project root, ready once its output says so, stopped and awaited.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { projectRoot } from '../local/local-environment.ts';

export interface BenchProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Resolves when the output matched `ready`; rejects if the process exits first. */
  isReady: Promise<void>;
  /** SIGTERM, then resolves once the process has exited (at once when it already has). */
  stop(): Promise<void>;
}

/** Output kept to explain a process that exited before it was ready; a long run's log is not kept whole. */
const keptOutputChars = 16 * 1024;

export function startProcess(args: readonly string[], env: NodeJS.ProcessEnv, ready: RegExp): BenchProcess {
  const child = spawn(process.execPath, args, { env, cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let readied = false;
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  const isReady = new Promise<void>((resolve, reject) => {
    const check = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-keptOutputChars);
      if (!readied && ready.test(output)) {
        readied = true;
        resolve();
      }
    };
    // Read on after it is ready too: a full pipe would block a process that keeps logging.
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    // Only an exit before it was ready is a failure: stopping it later is the benchmark's doing.
    child.once('exit', (code) => {
      if (!readied) reject(new Error(`${args.join(' ')} exited with ${String(code)}:\n${output}`));
    });
  });
  return {
    child,
    isReady,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Peak resident memory of a running process (VmHWM), in MB. */
export function peakRssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
  return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024;
}
