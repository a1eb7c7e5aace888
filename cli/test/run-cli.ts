import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommandLine } from '../run-command-line.ts';

export const binPath = fileURLToPath(new URL('../sps.mjs', import.meta.url));

/** The client's own variables, never inherited from whoever runs the tests. */
const clientVariables = new Set(['SERVICE_API_KEY', 'SERVICE_API_URL', 'SERVICE_AUTH_SERVER']);

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  home: string;
  /** Added to a copy of this process's environment from which the client's own variables are removed. */
  env?: Record<string, string | undefined>;
  /** The Node that runs the bin; this process's Node by default. */
  node?: string;
  bin?: string;
  timeoutMs?: number;
}

const temporaryFolders: string[] = [];

/** A fresh folder, removed by `removeTemporaryFolders` (call it in afterAll). */
export function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  temporaryFolders.push(folder);
  return folder;
}

/** A fresh folder to serve as HOME, so each test has its own ~/.service. */
export function temporaryHome(): string {
  return temporaryFolder('sps-cli-home-');
}

export function removeTemporaryFolders(): void {
  for (const folder of temporaryFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

/** The environment a run sees: this process's, without the client's own variables, with the run's HOME and `env`. */
function clientEnvironment(options: CliRunOptions): Record<string, string> {
  const env: Record<string, string> = {};
  const sources: [string, string | undefined][] = [
    ...Object.entries(process.env).filter(([name]) => !clientVariables.has(name)),
    ['HOME', options.home],
    ...Object.entries(options.env ?? {}),
  ];
  for (const [name, value] of sources) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Runs an `sps` command in this process, as the bin does (cli/main.ts) but with a terminal of its
 * own: output captured, the run's environment and home. The commands' own tests use this; a child
 * process costs 0.3-0.5 CPU-seconds to start, most of it loading modules this process has loaded.
 * `runBin` runs the bin itself (cli/bin.test.ts); `node`, `bin` and `timeoutMs` apply to it only.
 */
export async function runCli(args: string[], options: CliRunOptions): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCommandLine(args, {
    stdout: { write: (text: string) => { stdout += text; } },
    stderr: { write: (text: string) => { stderr += text; } },
    env: clientEnvironment(options),
    home: options.home,
    exitCode: 0,
  });
  return { code, stdout, stderr };
}

/**
 * Runs the real `sps` bin as a child process. Asynchronous on purpose: the api under test runs
 * in this process and must keep answering while the child waits for it.
 */
export function runBin(args: string[], options: CliRunOptions): Promise<CliRun> {
  const env = clientEnvironment(options);
  const child = spawn(options.node ?? process.execPath, [options.bin ?? binPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sps ${args.join(' ')} did not finish in time\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The JSON a successful command printed on stdout. */
export function stdoutJson(run: CliRun): unknown {
  if (run.code !== 0) throw new Error(`sps exited with ${String(run.code)}\nstderr: ${run.stderr}\nstdout: ${run.stdout}`);
  return JSON.parse(run.stdout);
}
