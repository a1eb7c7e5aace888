import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { withCompileCache } from '../../scripts/local/compile-cache.ts';

const projectRoot = path.resolve(import.meta.dirname, '..', '..');

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end, collecting what it printed. */
export function runProcess(
  file: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd: string },
): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.once('error', reject);
    child.once('close', (code) => { resolve({ code, stdout, stderr }); });
  });
}

/** Runs one of the project's TypeScript entry points with this Node (24, type stripping) and waits for it. */
export function runScript(entry: string, args: string[], env: NodeJS.ProcessEnv): Promise<ScriptResult> {
  const options = { env: withCompileCache(env), cwd: projectRoot };
  return runProcess(process.execPath, [path.join(projectRoot, entry), ...args], options);
}

export interface ServiceProcess {
  child: ChildProcess;
  /** Everything the process wrote so far (pino JSON lines on stdout, anything else on stderr). */
  output(): string;
  /** What it wrote on stdout alone (a CLI's JSON result). */
  stdout(): string;
  /** Resolves with the exit code when the process ends by itself. */
  exited(): Promise<number | null>;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts an entry point (api/main.ts, workers/main.ts, the CLI) as its own process. */
export function startService(entry: string, env: NodeJS.ProcessEnv, args: readonly string[] = []): ServiceProcess {
  const child = spawn(process.execPath, [path.join(projectRoot, entry), ...args], {
    env: withCompileCache(env), cwd: projectRoot,
  });
  let output = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  // 'close' rather than 'exit': by then stdout and stderr have been read to the end.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => { resolve(code); }));

  return {
    child,
    output: () => output,
    stdout: () => stdout,
    exited: () => exited,
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(output);
          if (match !== null) { cleanup(); resolve(match); }
        };
        const timer = setTimeout(() => { cleanup(); reject(new Error(`${entry} did not print ${String(pattern)} within ${timeoutMs} ms; output:\n${output}`)); }, timeoutMs);
        const cleanup = (): void => { clearTimeout(timer); listeners.delete(check); };
        listeners.add(check);
        void exited.then((code) => { if (listeners.has(check)) { cleanup(); reject(new Error(`${entry} exited with ${String(code)} before printing ${String(pattern)}; output:\n${output}`)); } });
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
