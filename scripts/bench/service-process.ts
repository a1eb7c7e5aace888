import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { projectRoot } from '../local/local-environment.ts';

/** A node process the benchmark started (the api, the workers, a baseline), its output going to a log file. */
export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `node <args>` from the project root and waits until its log shows `ready`. Output goes
 * to a file rather than a pipe, so a chatty process costs the benchmark process nothing.
 */
export async function startServiceProcess(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  options: { ready: RegExp; logFile: string; timeoutMs?: number },
): Promise<ServiceProcess> {
  const logFd = openSync(options.logFile, 'a');
  const child = spawn(process.execPath, args, { env, cwd: projectRoot, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const logTail = (): string => readFileSync(options.logFile, 'utf8').slice(-4000);
  while (!options.ready.test(readFileSync(options.logFile, 'utf8'))) {
    if (child.exitCode !== null) {
      throw new Error(`${name} exited with ${child.exitCode} before it was ready; its log:\n${logTail()}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} was not ready within ${options.timeoutMs ?? 60_000} ms; its log:\n${logTail()}`);
    }
    await sleep(100);
  }
  return {
    name,
    child,
    logFile: options.logFile,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => { child.kill('SIGKILL'); }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
