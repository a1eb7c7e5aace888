// The local-disk upload rows: SPS's POST /upload storing on local disk (STORAGE_DRIVER=local, the
// default) against a bare node:http server piping to a file (baselines/bare-disk-upload-server.ts).
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '../../test/support/free-port.ts';
import { peakRssMb, startProcess, type BenchProcess } from './bench-process.ts';
import { uploadPair, uploadsInTurns } from './upload-measure.ts';
import type { UploadPairResult } from './upload-results.ts';

export interface DiskUploadSettings {
  /** SPS's api, running with local storage in `uploadsDir`, on `apiPort`. */
  api: BenchProcess;
  apiPort: number;
  apiKey: string;
  uploadsDir: string;
  video: string;
  fileBytes: number;
  rounds: number;
  work: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

async function removeFilesUnder(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
  await Promise.all(files.map((file) => rm(file)));
}

export async function measureDiskUploads(settings: DiskUploadSettings): Promise<UploadPairResult> {
  const bareDir = path.join(settings.work, 'bare-uploads');
  await mkdir(bareDir, { recursive: true });
  const barePort = await freePort();
  const bare = startProcess(
    [path.join(import.meta.dirname, 'baselines', 'bare-disk-upload-server.ts')],
    { ...settings.env, PORT: String(barePort), BARE_UPLOAD_DIR: bareDir },
    /bare disk upload server ready/,
  );
  try {
    await bare.isReady;
    const seconds = await uploadsInTurns({
      where: 'local disk',
      video: settings.video,
      rounds: settings.rounds,
      apiUrl: `http://127.0.0.1:${String(settings.apiPort)}/api/public/v1/upload`,
      apiKey: settings.apiKey,
      bareUrl: `http://127.0.0.1:${String(barePort)}/`,
      removeStored: async () => {
        await Promise.all([removeFilesUnder(settings.uploadsDir), removeFilesUnder(bareDir)]);
      },
      log: settings.log,
    });
    const rss = { api: peakRssMb(settings.api.child.pid), bare: peakRssMb(bare.child.pid) };
    return uploadPair(settings.fileBytes, seconds, rss);
  } finally {
    await bare.stop();
  }
}
