// What the upload rows share, whatever the storage: SPS's api and workers started as the rows run
// them, and the same file sent to SPS and to a bare server in turns.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../local/local-environment.ts';
import { apiNodeFlags, apiProcessEnvironment } from '../local/api-process.ts';
import { startProcess, type BenchProcess } from './bench-process.ts';
import { uploadFile } from './multipart-upload.ts';
import { median } from './results-table.ts';
import type { UploadPairResult } from './upload-results.ts';

export interface SpsProcesses {
  api: BenchProcess;
  workers: BenchProcess;
}

/** SPS's api (with the node flags and environment it runs with in production) and workers, ready. */
export async function startSps(env: NodeJS.ProcessEnv): Promise<SpsProcesses> {
  const api = startProcess(
    [...apiNodeFlags, path.join(projectRoot, 'api/main.ts')], { ...env, ...apiProcessEnvironment }, /api listening/,
  );
  const workers = startProcess([path.join(projectRoot, 'workers/main.ts')], env, /workers running/);
  try {
    await Promise.all([api.isReady, workers.isReady]);
  } catch (error) {
    await Promise.all([api.stop(), workers.stop()]);
    throw error;
  }
  return { api, workers };
}

export interface UploadTurns {
  /** The storage, for the log. */
  where: string;
  video: string;
  rounds: number;
  apiUrl: string;
  apiKey: string;
  bareUrl: string;
  /** Removes what earlier uploads stored, on both sides. */
  removeStored(): Promise<void>;
  log: (line: string) => void;
}

/**
 * The same file to SPS's POST /upload and to the bare server, in turns, so a busy moment of the
 * machine weighs on both sides alike; the side that goes first alternates. Every upload starts
 * from the same state: the earlier uploads' files removed and the disk synced. Files left in place
 * made every later upload, to either side, about twice as slow on this kind of virtual machine
 * (fresh memory for the page cache is slow to come by).
 */
export async function uploadsInTurns(turns: UploadTurns): Promise<{ spsSeconds: number[]; bareSeconds: number[] }> {
  const settle = async (): Promise<void> => {
    await turns.removeStored();
    spawnSync('sync', { stdio: 'ignore' });
  };
  const toSps = async (): Promise<number> => {
    await settle();
    const answer = await uploadFile(turns.apiUrl, turns.video, { Authorization: turns.apiKey });
    if (answer.status !== 201) throw new Error(`the api answered ${String(answer.status)}: ${answer.body}`);
    return answer.seconds;
  };
  const toBare = async (): Promise<number> => {
    await settle();
    const answer = await uploadFile(turns.bareUrl, turns.video, {});
    if (answer.status !== 200) throw new Error(`the bare server answered ${String(answer.status)}: ${answer.body}`);
    return answer.seconds;
  };
  const spsSeconds: number[] = [];
  const bareSeconds: number[] = [];
  for (let round = 1; round <= turns.rounds; round += 1) {
    const first = round % 2 === 1 ? 'bare' : 'api';
    turns.log(`uploading to both sides, ${turns.where} (round ${round} of ${turns.rounds}, ${first} first)...`);
    if (round % 2 === 1) bareSeconds.push(await toBare());
    spsSeconds.push(await toSps());
    if (round % 2 === 0) bareSeconds.push(await toBare());
  }
  await settle();
  return { spsSeconds, bareSeconds };
}

const twoPlaces = (value: number): number => +value.toFixed(2);
const onePlace = (value: number): number => +value.toFixed(1);

/** The figures of one storage's rows: median throughputs, their ratio, and both sides' peak RSS. */
export function uploadPair(
  fileBytes: number,
  seconds: { spsSeconds: number[]; bareSeconds: number[] },
  peakRssMb: { api: number; bare: number },
): UploadPairResult {
  const mib = fileBytes / 1024 ** 2;
  const sps = mib / median(seconds.spsSeconds);
  const bare = mib / median(seconds.bareSeconds);
  return {
    spsSeconds: seconds.spsSeconds.map(twoPlaces),
    bareSeconds: seconds.bareSeconds.map(twoPlaces),
    spsMibPerSecond: onePlace(sps),
    bareMibPerSecond: onePlace(bare),
    throughputRatio: +(sps / bare).toFixed(3),
    apiPeakRssMb: onePlace(peakRssMb.api),
    barePeakRssMb: onePlace(peakRssMb.bare),
  };
}
