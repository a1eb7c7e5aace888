import type { RedisConnection } from '../queue/redis.ts';
import { Readable } from 'node:stream';
import type { Database } from '../db/database.ts';
import { LogEvent } from '../logging/events.ts';
import type { Logger } from '../logging/logger.ts';
import {
  MediaToolMissing, runMediaTool, runTool, type MediaToolCommands, type MediaToolName,
} from '../media/media-tool.ts';
import { newObjectKey } from '../storage/object-key.ts';
import type { Storage } from '../storage/storage.ts';

/** What a process needs to be able to do its work; each check says why it is not ready. */
export interface ReadinessDeps {
  db: Database;
  redis: RedisConnection;
  storage: Storage;
  /** The media tools this process runs (the workers that inspect media); none for the api. */
  mediaTools: MediaToolCommands | null;
  /** The speech engine's command (ESPEAK_PATH) where this process generates videos; absent elsewhere. */
  speechEngine?: string | null;
  /** Longest any one check may take before it counts as failed. */
  timeoutMs: number;
}

/** Each check's limit; a probe calling /ready should wait a little longer (Kubernetes: timeoutSeconds 3). */
export const readinessTimeoutMs = 2_000;

/**
 * A check's answer. `error` is a short reason of SPS's own words ("not answering"): /ready is
 * asked without credentials, and a driver's message can name internal hosts and addresses.
 */
export type CheckOutcome = { ok: true; ms: number } | { ok: false; ms: number; error: string };

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckOutcome>;
  /** The failed checks' own errors, for the log only (logUnreadiness). */
  failures: Record<string, Error>;
}

/** One dependency: how to check it, and the short reason /ready gives when it fails. */
interface Check {
  name: string;
  run: () => Promise<unknown>;
  reason: (error: Error) => string;
}

class CheckTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${String(timeoutMs)} ms`);
    this.name = 'CheckTimeout';
  }
}

function withinTime<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new CheckTimeout(timeoutMs)); }, timeoutMs);
  });
  return Promise.race([work, late]).finally(() => { clearTimeout(timer); });
}

async function timed(check: Check, timeoutMs: number): Promise<{ outcome: CheckOutcome; failure?: Error }> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    await withinTime(check.run(), timeoutMs);
    return { outcome: { ok: true, ms: ms() } };
  } catch (caught) {
    const failure = caught instanceof Error ? caught : new Error(String(caught));
    // Our own time limit says nothing about the network, so it is answered as it is.
    const error = failure instanceof CheckTimeout ? failure.message : check.reason(failure);
    return { outcome: { ok: false, ms: ms(), error }, failure };
  }
}

const toolReason = (error: Error): string => (
  error instanceof MediaToolMissing ? 'not installed on this server' : 'does not run'
);

/** Writes, then removes, a small object: the storage answers and takes writes. */
async function storageWritable(storage: Storage): Promise<void> {
  const key = newObjectKey('txt');
  await storage.put(key, Readable.from([Buffer.from('ready\n')]), { contentType: 'text/plain' });
  await storage.delete(key);
}

async function toolRuns(tool: MediaToolName, tools: MediaToolCommands, timeoutMs: number): Promise<void> {
  const run = runMediaTool(tool, ['-version'], timeoutMs, tools);
  run.stdout.resume();
  await run.exited;
}

async function speechEngineRuns(command: string, timeoutMs: number): Promise<void> {
  const run = runTool('espeak-ng', command, ['--version'], timeoutMs);
  run.stdout.resume();
  await run.exited;
}

/**
 * Whether this process can serve requests or jobs now: MongoDB and Redis answer, storage takes a
 * write, and the media tools it runs start. All checks run together, each within `timeoutMs`.
 */
export async function checkReadiness(deps: ReadinessDeps): Promise<Readiness> {
  const checks: Check[] = [
    {
      name: 'mongodb',
      run: async () => {
        if (deps.db.connection.db === undefined) throw new Error('not connected');
        await deps.db.connection.db.admin().ping();
      },
      reason: () => 'not answering',
    },
    { name: 'redis', run: () => deps.redis.ping(), reason: () => 'not answering' },
    { name: 'storage', run: () => storageWritable(deps.storage), reason: () => 'does not take writes' },
  ];
  const tools = deps.mediaTools;
  if (tools !== null) {
    for (const tool of ['ffprobe', 'ffmpeg'] as const) {
      checks.push({ name: tool, run: () => toolRuns(tool, tools, deps.timeoutMs), reason: toolReason });
    }
  }
  const speechEngine = deps.speechEngine ?? null;
  if (speechEngine !== null) {
    checks.push({ name: 'espeak-ng', run: () => speechEngineRuns(speechEngine, deps.timeoutMs), reason: toolReason });
  }
  const results = await Promise.all(
    checks.map(async (check) => [check.name, await timed(check, deps.timeoutMs)] as const),
  );
  const failures: Record<string, Error> = {};
  for (const [name, { failure }] of results) if (failure !== undefined) failures[name] = failure;
  return {
    ready: results.every(([, { outcome }]) => outcome.ok),
    checks: Object.fromEntries(results.map(([name, { outcome }]) => [name, outcome])),
    failures,
  };
}

/** Writes what /ready leaves out: each failed check with its own error (host names included). */
export function logUnreadiness(log: Logger, readiness: Readiness): void {
  for (const [check, error] of Object.entries(readiness.failures)) {
    log.warn({ event: LogEvent.readinessFailed, check, err: error }, `not ready: ${check} failed`);
  }
}
