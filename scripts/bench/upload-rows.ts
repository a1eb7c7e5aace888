import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { projectRoot } from '../local/local-environment.ts';
import type { BenchServers } from './bench-servers.ts';
import { figure, ratioText, type BenchRow } from './results-table.ts';
import { uploadResults, type UploadPairResult, type UploadResults } from './upload-results.ts';

/** Throughput and the api's peak RSS of one storage's uploads. */
function uploadPairRows(
  where: string,
  size: string,
  pair: UploadPairResult,
  targets: UploadResults['targets'],
): BenchRow[] {
  return [
    {
      measure: `upload throughput, ${where} (MiB/s)`, databaseSize: size,
      sps: figure(pair.spsMibPerSecond), baseline: figure(pair.bareMibPerSecond),
      ratio: ratioText(pair.throughputRatio), target: `>= ${targets.throughputRatio.toFixed(2)}x`,
      pass: pair.throughputRatio >= targets.throughputRatio,
    },
    {
      measure: `api peak RSS during upload, ${where} (MB)`, databaseSize: size, sps: figure(pair.apiPeakRssMb),
      baseline: '-', ratio: '-', target: `< ${String(targets.apiPeakRssMb)} MB`,
      pass: pair.apiPeakRssMb < targets.apiPeakRssMb,
    },
  ];
}

/** The rows of one run of the upload benchmark, from what it printed. */
export function rowsOfUploadResults(results: UploadResults): BenchRow[] {
  const size = `${String(results.fileMiB)} MiB file`;
  const { inspection, targets } = results;
  return [
    ...uploadPairRows('local disk', size, results.disk, targets),
    ...uploadPairRows('S3', size, results.s3, targets),
    {
      measure: 'media inspection, worker path (ms, median)',
      databaseSize: `${String(inspection.files)} clips, ${String(inspection.spsMs.length)} jobs`,
      sps: figure(inspection.spsMedianMs), baseline: figure(inspection.bareMedianMs),
      ratio: ratioText(inspection.ratio), target: `<= ${targets.inspectionRatio.toFixed(2)}x`,
      pass: inspection.ratio <= targets.inspectionRatio,
    },
  ];
}

/** Runs the upload benchmark (`npm run bench:upload`) on the run's servers and turns its figures into rows. */
export async function uploadRows(servers: BenchServers): Promise<BenchRow[]> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'upload-benchmark.ts')], {
    cwd: projectRoot,
    // Its own database on the run's FerretDB (it derives a name and drops it), not the embedded default.
    env: {
      ...process.env, MONGO_URL: `${servers.mongoRootUrl}sps_upload`, REDIS_URL: servers.redisUrl,
      BENCH_QUEUE_PREFIX: `${servers.queuePrefix}-upload`, SECRETS_KEY: randomBytes(32).toString('hex'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => { output += chunk; });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the upload benchmark exited with ${String(code)}: ${output.slice(-2000)}`);
  return rowsOfUploadResults(uploadResults.parse(JSON.parse(output)));
}
