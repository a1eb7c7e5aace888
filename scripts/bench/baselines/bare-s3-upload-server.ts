// The baseline of the S3 upload rows: node:http streaming each whole request body (multipart
// framing and all) to a new object on the same S3-compatible server as SPS, through the AWS
// SDK's multipart Upload (@aws-sdk/lib-storage) with that library's defaults, as anyone writing
// this server would: no parsing, sniffing, size check, database or inspection.
import { createServer } from 'node:http';
import { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { z } from 'zod';

const env = z.object({
  PORT: z.coerce.number().int().min(1).max(65535),
  S3_ENDPOINT: z.url(),
  S3_REGION: z.string().min(1),
  S3_BUCKET: z.string().min(3),
  S3_ACCESS_KEY_ID: z.string().min(1),
  S3_SECRET_ACCESS_KEY: z.string().min(1),
}).parse(process.env);

const client = new S3Client({
  region: env.S3_REGION,
  endpoint: env.S3_ENDPOINT,
  forcePathStyle: true,
  credentials: { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY },
});

let uploads = 0;
const server = createServer((request, response) => {
  uploads += 1;
  const key = `bare/${String(uploads)}.bin`;
  const upload = new Upload({ client, params: { Bucket: env.S3_BUCKET, Key: key, Body: request } });
  upload.done().then(() => {
    response.end('ok');
  }, (error: unknown) => {
    process.stderr.write(`bare s3 upload server: ${String(error)}\n`);
    response.statusCode = 500;
    response.end(String(error));
  });
});
server.listen(env.PORT, '127.0.0.1', () => { process.stdout.write('bare s3 upload server ready\n'); });
process.once('SIGTERM', () => {
  server.close(() => {
    client.destroy();
    process.exit(0);
  });
});
