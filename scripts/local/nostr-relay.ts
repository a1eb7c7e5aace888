import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { buildCachePath, sourcesTag } from './build-cache.ts';
import { hasCommand } from './system-package.ts';

/**
 * A real Nostr relay for the tests: khatru (github.com/fiatjaf/khatru, maintained, the framework many
 * public relays run on) over an in-memory event store, wrapped in scripts/nostr-relay. It verifies
 * ids and signatures, keeps one copy per id and answers NIP-01 filters itself, which a simulator
 * written next to the adapter can only imitate.
 */
export const khatruVersion = 'v0.18.0';
const projectRoot = path.resolve(import.meta.dirname, '..', '..');
const wrapperDir = path.join(projectRoot, 'scripts', 'nostr-relay');

/** The binary for these exact wrapper sources: a new khatru version (go.mod) or a new flag builds anew. */
function binaryPath(): string {
  return buildCachePath('nostr-relay', `khatru-${khatruVersion}-${sourcesTag(wrapperDir)}`);
}

/**
 * Builds the relay once and caches it in the build cache (about 30 s of compiling the first time, plus
 * fetching the modules from the Go module proxy); later calls return at once.
 */
export function buildNostrRelay(log: (line: string) => void): string {
  const binary = binaryPath();
  if (existsSync(binary)) return binary;
  if (!hasCommand('go')) throw new Error('Go is needed to build the Nostr relay the tests publish to (khatru)');
  log(`building the Nostr relay (khatru ${khatruVersion}, first run only, under a minute)...`);
  mkdirSync(path.dirname(binary), { recursive: true });
  const started = Date.now();
  // Checkouts share the build cache: each builds to a name of its own and renames, which is atomic.
  const partial = `${binary}.partial-${String(process.pid)}`;
  execFileSync('go', ['build', '-trimpath', '-o', partial, '.'], {
    cwd: wrapperDir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
  });
  renameSync(partial, binary);
  log(`Nostr relay built in ${String(Math.round((Date.now() - started) / 1000))} s`);
  return binary;
}

export interface NostrRelayOptions {
  /** Kinds the relay accepts, refusing others with "blocked: received event kind N not allowed"; all when absent. */
  onlyKinds?: number[];
}

export interface RunningNostrRelay {
  /** ws://127.0.0.1:<port> */
  url: string;
  child: ChildProcess;
  close(): Promise<void>;
}

/** Starts an empty relay on a free loopback port (the relay picks it and prints its address). */
export async function startNostrRelay(
  options: NostrRelayOptions = {},
  log: (line: string) => void = () => undefined,
): Promise<RunningNostrRelay> {
  const binary = buildNostrRelay(log);
  const kinds = options.onlyKinds === undefined ? [] : ['-only-kinds', options.onlyKinds.join(',')];
  const child = spawn(binary, ['-listen', '127.0.0.1:0', ...kinds], { stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    // Only the last words matter, to say why it stopped.
    stderr.push(text);
    if (stderr.length > 20) stderr.shift();
  });
  const exited = new Promise<void>((resolve) => { child.once('exit', () => { resolve(); }); });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the Nostr relay did not start within 10 s'));
    }, 10_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      const address = /ws:\/\/[0-9.]+:\d+/.exec(line)?.[0];
      if (address === undefined) reject(new Error(`the Nostr relay said ${line} instead of its address`));
      else resolve(address);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the Nostr relay exited before listening: ${stderr.join('')}`));
    });
  });
  return {
    url,
    child,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
