import type { Redis } from 'ioredis';
import { Readable } from 'node:stream';
import type { Database } from '../db/database.ts';
import { runMediaTool, runTool, type MediaToolCommands, type MediaToolName } from '../media/media-tool.ts';
import { newObjectKey } from '../storage/object-key.ts';
import type { Storage } from '../storage/storage.ts';

/** What a process needs to be able to do its work; each check says why it is not ready. */
export interface ReadinessDeps {
  db: Database;
  redis: Redis;
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

export type CheckOutcome = { ok: true; ms: number } | { ok: false; ms: number; error: string };

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckOutcome>;
}

function withinTime<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new Error(`no answer within ${String(timeoutMs)} ms`)); }, timeoutMs);
  });
  return Promise.race([work, late]).finally(() => { clearTimeout(timer); });
}

async function timed(check: () => Promise<unknown>, timeoutMs: number): Promise<CheckOutcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    await withinTime(check(), timeoutMs);
    return { ok: true, ms: ms() };
  } catch (error) {
    return { ok: false, ms: ms(), error: error instanceof Error ? error.message : String(error) };
  }
}

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
  const checks: [string, () => Promise<unknown>][] = [
    ['mongodb', async () => {
      if (deps.db.connection.db === undefined) throw new Error('not connected');
      await deps.db.connection.db.admin().ping();
    }],
    ['redis', () => deps.redis.ping()],
    ['storage', () => storageWritable(deps.storage)],
  ];
  const tools = deps.mediaTools;
  if (tools !== null) {
    for (const tool of ['ffprobe', 'ffmpeg'] as const) {
      checks.push([tool, () => toolRuns(tool, tools, deps.timeoutMs)]);
    }
  }
  const speechEngine = deps.speechEngine ?? null;
  if (speechEngine !== null) checks.push(['espeak-ng', () => speechEngineRuns(speechEngine, deps.timeoutMs)]);
  const outcomes = await Promise.all(
    checks.map(async ([name, check]) => [name, await timed(check, deps.timeoutMs)] as const),
  );
  return { ready: outcomes.every(([, outcome]) => outcome.ok), checks: Object.fromEntries(outcomes) };
}
