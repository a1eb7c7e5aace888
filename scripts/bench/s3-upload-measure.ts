// The S3 upload rows: SPS's POST /upload with STORAGE_DRIVER=s3 against a bare node:http server
// streaming to the same bucket with the AWS SDK's multipart Upload
// (baselines/bare-s3-upload-server.ts), on the real S3-compatible server the tests use
// (scripts/local/s3-server.ts, versitygw over a folder of this machine's disk). SPS gets an api
// and a workers process of their own, both with the S3 settings: the upload's answer waits for
// the worker's inspection, which reads the video back from the bucket and stores the poster there.
import { rmSync } from 'node:fs';
import path from 'node:path';
import {
  CreateBucketCommand, DeleteObjectCommand, ListObjectsV2Command, S3Client,
} from '@aws-sdk/client-s3';
import { startS3Server } from '../local/s3-server.ts';
import { freePort } from '../../test/support/free-port.ts';
import { peakRssMb, startProcess } from './bench-process.ts';
import { startSps, uploadPair, uploadsInTurns } from './upload-measure.ts';
import type { UploadPairResult } from './upload-results.ts';

export interface S3UploadSettings {
  /** SPS's environment without storage settings (database, Redis, queue prefix...). */
  env: NodeJS.ProcessEnv;
  apiKey: string;
  video: string;
  fileBytes: number;
  rounds: number;
  work: string;
  log: (line: string) => void;
}

const bucket = 'sps-bench';
const region = 'us-east-1';

/** Every object in the bucket, SPS's and the bare server's, deleted through the S3 API. */
async function emptyBucket(client: S3Client): Promise<void> {
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
    for (const object of page.Contents ?? []) {
      if (object.Key !== undefined) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: object.Key }));
    }
    token = page.NextContinuationToken;
  } while (token !== undefined);
}

export async function measureS3Uploads(settings: S3UploadSettings): Promise<UploadPairResult> {
  const { log } = settings;
  const dataDir = path.join(settings.work, 's3-data');
  const server = await startS3Server(
    { port: await freePort(), dataDir, logFile: path.join(settings.work, 'versitygw.log') }, log,
  );
  const client = new S3Client({
    region, endpoint: server.endpoint, forcePathStyle: true,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    const s3Env = {
      STORAGE_DRIVER: 's3', S3_BUCKET: bucket, S3_REGION: region, S3_ENDPOINT: server.endpoint,
      S3_ACCESS_KEY_ID: server.accessKeyId, S3_SECRET_ACCESS_KEY: server.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true', S3_PUBLIC_URL: `${server.endpoint}/${bucket}`,
    };
    const apiPort = await freePort();
    const barePort = await freePort();
    log('starting an api and workers storing in S3...');
    const sps = await startSps({ ...settings.env, ...s3Env, PORT: String(apiPort) });
    const bare = startProcess(
      [path.join(import.meta.dirname, 'baselines', 'bare-s3-upload-server.ts')],
      { ...settings.env, ...s3Env, PORT: String(barePort) },
      /bare s3 upload server ready/,
    );
    try {
      await bare.isReady;
      const seconds = await uploadsInTurns({
        where: 'S3',
        video: settings.video,
        rounds: settings.rounds,
        apiUrl: `http://127.0.0.1:${String(apiPort)}/api/public/v1/upload`,
        apiKey: settings.apiKey,
        bareUrl: `http://127.0.0.1:${String(barePort)}/`,
        removeStored: () => emptyBucket(client),
        log,
      });
      const rss = { api: peakRssMb(sps.api.child.pid), bare: peakRssMb(bare.child.pid) };
      return uploadPair(settings.fileBytes, seconds, rss);
    } finally {
      await Promise.all([bare.stop(), sps.api.stop(), sps.workers.stop()]);
    }
  } finally {
    client.destroy();
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
