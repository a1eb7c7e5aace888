import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { projectRoot } from '../local/local-environment.ts';
import type { BenchServers } from './bench-servers.ts';
import { figure, ratioText, type BenchRow } from './results-table.ts';

/** What scripts/bench/upload-benchmark.ts prints on stdout. */
const uploadResults = z.object({
  fileMiB: z.number(),
  api: z.object({ mibPerSecond: z.number(), peakRssMb: z.number() }),
  bare: z.object({ mibPerSecond: z.number() }),
  throughputRatio: z.number(),
  inspection: z.object({ spsMedianMs: z.number(), bareFfprobeMedianMs: z.number(), ratio: z.number() }),
});

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
  const results = uploadResults.parse(JSON.parse(output));
  const size = `${results.fileMiB} MiB file`;
  return [
    {
      measure: 'upload throughput (MiB/s)', databaseSize: size,
      sps: figure(results.api.mibPerSecond), baseline: figure(results.bare.mibPerSecond),
      ratio: ratioText(results.throughputRatio), target: '>= 0.70x', pass: results.throughputRatio >= 0.7,
    },
    {
      measure: 'api peak RSS during upload (MB)', databaseSize: size, sps: figure(results.api.peakRssMb), baseline: '-',
      ratio: '-', target: '< 200 MB', pass: results.api.peakRssMb < 200,
    },
    {
      measure: 'media inspection (ms, median)', databaseSize: size,
      sps: figure(results.inspection.spsMedianMs), baseline: figure(results.inspection.bareFfprobeMedianMs),
      ratio: ratioText(results.inspection.ratio), target: '<= 1.20x', pass: results.inspection.ratio <= 1.2,
    },
  ];
}
