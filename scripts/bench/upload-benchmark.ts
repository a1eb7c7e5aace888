// `npm run bench:upload`: upload throughput and the api's memory of POST /upload, on local disk and
// on S3, each against a bare server doing only the storing; and the media worker's inspection
// path against a bare BullMQ worker doing the same work. Prints the figures as JSON on stdout
// (scripts/bench/upload-results.ts), which `npm run bench` turns into rows (upload-rows.ts).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { SecretBox } from '../../shared/crypto/secret-box.ts';
import { openDatabase } from '../../shared/db/database.ts';
import { loadConfig } from '../../shared/config/config.ts';
import { createStorage } from '../../shared/storage/create-storage.ts';
import { freePort } from '../../test/support/free-port.ts';
import { prepareLocalEnvironment } from '../local/local-environment.ts';
import { logToStderr } from '../local/run-script.ts';
import { ensureDebianPackage } from '../local/system-package.ts';
import { makeInspectionClips, makeUploadVideo } from './bench-videos.ts';
import { measureDiskUploads } from './disk-upload-measure.ts';
import { measureInspection } from './inspection-measure.ts';
import { measureS3Uploads } from './s3-upload-measure.ts';
import { startSps } from './upload-measure.ts';
import { formatTable } from './results-table.ts';
import { uploadTargets, type UploadResults } from './upload-results.ts';
import { rowsOfUploadResults } from './upload-rows.ts';

const fileBytes = Number(process.env.BENCH_FILE_BYTES ?? 1024 ** 3);
/** Uploads to each side, alternately, per storage. */
const uploadRounds = 3;
/** Times each inspection clip goes through each side (five clips: 15 jobs a side). */
const inspectionRepeats = 3;
const work = mkdtempSync(path.join(tmpdir(), 'sps-bench-'));
const log = (line: string): void => { logToStderr(`[bench] ${line}`); };

async function main(): Promise<void> {
  ensureDebianPackage('ffprobe', 'ffmpeg', log);
  const env = await prepareLocalEnvironment({ ...process.env, MONGO_URL: process.env.MONGO_URL }, log);
  const benchId = randomBytes(4).toString('hex');
  const port = await freePort();
  const uploadsDir = path.join(work, 'uploads');
  const serviceEnv: NodeJS.ProcessEnv = {
    ...env,
    MONGO_URL: `${(env.MONGO_URL ?? '').replace(/\/[^/]*$/, '/')}sps_bench_${benchId}`,
    // npm run bench passes its run's prefix, so its clean-up removes these keys too.
    QUEUE_PREFIX: process.env.BENCH_QUEUE_PREFIX ?? `sps-bench-${benchId}`,
    PORT: String(port),
    UPLOADS_DIR: uploadsDir,
    UPLOADS_PUBLIC_URL: `http://127.0.0.1:${String(port)}/uploads`,
    LOG_LEVEL: 'info',
    MEDIA_WAIT_MS: '120000',
  };
  const config = loadConfig(serviceEnv);
  log(`making a ${(fileBytes / 1024 ** 3).toFixed(2)} GiB video and the inspection clips in ${work}...`);
  const video = makeUploadVideo(work, fileBytes);
  const clips = makeInspectionClips(work);
  mkdirSync(uploadsDir, { recursive: true });
  const db = await openDatabase(config.MONGO_URL);
  try {
    const secrets = new SecretBox(config.SECRETS_KEY);
    const { organizationId, apiKey } = await createOrganization(db, secrets, { name: 'Bench' });
    const common = { video, fileBytes, rounds: uploadRounds, work, log };

    // Local disk first; the inspection row then runs on the same workers process, the api stopped.
    const sps = await startSps(serviceEnv);
    let disk: UploadResults['disk'];
    let inspection: UploadResults['inspection'];
    try {
      disk = await measureDiskUploads({ ...common, api: sps.api, apiPort: port, apiKey, uploadsDir, env: serviceEnv });
      await sps.api.stop();
      log('timing inspection on the media worker path...');
      inspection = await measureInspection({
        config, env: serviceEnv, db, storage: await createStorage(config), clips, repeats: inspectionRepeats,
        organizationId, work, log,
      });
    } finally {
      await Promise.all([sps.api.stop(), sps.workers.stop()]);
    }

    log('uploading to S3...');
    const s3 = await measureS3Uploads({ ...common, env: serviceEnv, apiKey });
    const fileMiB = Math.round(fileBytes / 1024 ** 2);
    const results: UploadResults = { fileMiB, disk, s3, inspection, targets: uploadTargets };
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    // The rows npm run bench makes of these figures, for a run of this alone; stdout stays the JSON it parses.
    logToStderr(`\n${formatTable(rowsOfUploadResults(results))}\n`);
  } finally {
    await db.connection.dropDatabase();
    await db.close();
  }
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(0);
