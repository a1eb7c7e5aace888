// `npm run bench`: SPS against bare baselines on the same servers, on an empty database and on a
// seeded one (issues 16 and 17), then the upload benchmark. Prints one table; exits 1 when a
// target is missed or a measure fails. Knobs: scripts/bench/bench-knobs.ts (BENCH_POSTS...).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { logToStderr } from '../local/run-script.ts';
import { benchKnobs, runs } from './bench-knobs.ts';
import { benchNotes } from './bench-notes.ts';
import { runPhases } from './bench-phases.ts';
import { startBenchServers } from './bench-servers.ts';
import { startBenchStack } from './bench-stack.ts';
import { formatTable, type BenchRow } from './results-table.ts';
import { uploadRows } from './upload-rows.ts';

const log = (line: string): void => { logToStderr(`[bench] ${line}`); };

async function main(): Promise<number> {
  const knobs = benchKnobs.parse(process.env);
  const workDir = mkdtempSync(path.join(tmpdir(), 'sps-bench-'));
  log(`work directory (logs): ${workDir}`);
  const rows: BenchRow[] = [];
  let failure: unknown = null;
  const servers = await startBenchServers(workDir, log);
  try {
    const stack = await startBenchStack(servers, workDir, log);
    try {
      await runPhases({ stack, servers, knobs, rows, log });
    } finally {
      await stack.close();
    }
    if (knobs.BENCH_UPLOAD === '1' && runs(knobs, 'upload')) {
      log('running the upload benchmark (BENCH_UPLOAD=0 leaves it out)...');
      rows.push(...await uploadRows(servers));
    }
  } catch (error) {
    // The rows measured so far are still printed below, then the run fails.
    failure = error;
  } finally {
    await servers.stop();
  }
  process.stdout.write(`\n${formatTable(rows)}\n\n${benchNotes.map((note) => `- ${note}`).join('\n')}\n`);
  const missed = rows.filter((row) => row.pass === false).length;
  if (failure !== null) {
    const reason = failure instanceof Error ? (failure.stack ?? failure.message) : JSON.stringify(failure);
    log(`the benchmark stopped: ${reason}`);
  }
  if (failure !== null || missed > 0 || knobs.BENCH_KEEP_LOGS === '1') {
    log(`logs kept in ${workDir}`);
  } else {
    rmSync(workDir, { recursive: true, force: true });
  }
  if (missed > 0) log(`${missed} target(s) missed`);
  return failure !== null || missed > 0 ? 1 : 0;
}

process.exit(await main());
