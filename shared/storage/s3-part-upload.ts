import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, PutObjectCommand,
  UploadPartCommand, type CompletedPart, type S3Client,
} from '@aws-sdk/client-s3';

export interface PartUploadTarget {
  bucket: string;
  key: string;
  contentType?: string | undefined;
}

export interface PartUploadOptions {
  /** Bytes of every part but the last (S3 takes 5 MiB at least). */
  partSize: number;
  /** Parts on their way to S3 while the next one fills. */
  partsInFlight: number;
}

/**
 * Streams a body of unknown length to S3 and answers its size in bytes. The body is copied once,
 * into `partsInFlight + 1` part buffers allocated up front and reused for the whole upload; a
 * full buffer is sent as one part while the next fills, and reading waits while none is free.
 *
 * Why not @aws-sdk/lib-storage's Upload: it copies every chunk it reads, then concatenates each
 * part, so a 1 GiB upload made about 100 MB of buffers per second that lived until V8's next full
 * collection; the api's peak RSS during an S3 upload was 80-90 MB above a local-disk upload.
 *
 * A body smaller than a part is one PutObject. A failure (the body's or S3's) aborts the
 * multipart upload, so no orphaned parts stay in the bucket, and is thrown.
 */
export async function uploadInParts(
  client: S3Client,
  target: PartUploadTarget,
  body: Readable,
  options: PartUploadOptions,
): Promise<number> {
  const object = { Bucket: target.bucket, Key: target.key };
  const described = target.contentType === undefined ? {} : { ContentType: target.contentType };
  const free: Buffer[] = Array.from({ length: options.partsInFlight + 1 }, () => Buffer.allocUnsafe(options.partSize));
  const sending = new Set<Promise<void>>();
  const parts: CompletedPart[] = [];
  let uploadId: string | undefined;
  let failure: Error | undefined;
  let size = 0;

  const send = (buffer: Buffer, length: number, partNumber: number, id: string): void => {
    const sent = client.send(new UploadPartCommand({
      ...object, UploadId: id, PartNumber: partNumber, Body: buffer.subarray(0, length), ContentLength: length,
    })).then((answer) => {
      if (answer.ETag === undefined) throw new Error(`S3 answered part ${String(partNumber)} without an ETag`);
      parts[partNumber - 1] = {
        PartNumber: partNumber, ETag: answer.ETag,
        ...(answer.ChecksumCRC32 === undefined ? {} : { ChecksumCRC32: answer.ChecksumCRC32 }),
        ...(answer.ChecksumCRC32C === undefined ? {} : { ChecksumCRC32C: answer.ChecksumCRC32C }),
        ...(answer.ChecksumSHA1 === undefined ? {} : { ChecksumSHA1: answer.ChecksumSHA1 }),
        ...(answer.ChecksumSHA256 === undefined ? {} : { ChecksumSHA256: answer.ChecksumSHA256 }),
      };
      free.push(buffer);
    }, (error: unknown) => {
      failure ??= error instanceof Error ? error : new Error(String(error));
    }).finally(() => { sending.delete(sent); });
    sending.add(sent);
  };
  const nextFree = async (): Promise<Buffer> => {
    for (let buffer = free.pop(); ; buffer = free.pop()) {
      if (failure !== undefined) throw failure;
      if (buffer !== undefined) return buffer;
      await Promise.race(sending);
    }
  };

  try {
    let current = await nextFree();
    let filled = 0;
    let partNumber = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      for (let offset = 0; offset < chunk.length;) {
        const copied = chunk.copy(current, filled, offset, Math.min(chunk.length, offset + options.partSize - filled));
        [filled, offset, size] = [filled + copied, offset + copied, size + copied];
        if (filled < options.partSize) continue;
        uploadId ??= await createUpload(client, { ...object, ...described });
        partNumber += 1;
        send(current, filled, partNumber, uploadId);
        [current, filled] = [await nextFree(), 0];
      }
    }
    if (uploadId === undefined) {
      const whole = current.subarray(0, filled);
      await client.send(new PutObjectCommand({ ...object, ...described, Body: whole, ContentLength: filled }));
      return size;
    }
    if (filled > 0) send(current, filled, partNumber + 1, uploadId);
    while (sending.size > 0) await Promise.race(sending);
    if (failure !== undefined) throw failure;
    const completion = { ...object, UploadId: uploadId, MultipartUpload: { Parts: parts } };
    await client.send(new CompleteMultipartUploadCommand(completion));
    return size;
  } catch (error) {
    await Promise.allSettled(sending);
    if (uploadId !== undefined) await abortUpload(client, object, uploadId, error);
    throw error;
  }
}

/** Parts carry CRC32 checksums, as the SDK computes them by default: the upload says so from the start. */
async function createUpload(
  client: S3Client,
  object: { Bucket: string; Key: string; ContentType?: string },
): Promise<string> {
  const checksums = await client.config.requestChecksumCalculation();
  const created = await client.send(new CreateMultipartUploadCommand({
    ...object, ...(checksums === 'WHEN_SUPPORTED' ? { ChecksumAlgorithm: 'CRC32' as const } : {}),
  }));
  if (created.UploadId === undefined) throw new Error('S3 started a multipart upload without naming it');
  return created.UploadId;
}

async function abortUpload(
  client: S3Client,
  object: { Bucket: string; Key: string },
  uploadId: string,
  reason: unknown,
): Promise<void> {
  try {
    await client.send(new AbortMultipartUploadCommand({ ...object, UploadId: uploadId }));
  } catch (abortError) {
    // Both failures travel on: the upload's (what went wrong) and the abort's (why parts may remain).
    throw new AggregateError([reason, abortError], 'the S3 upload failed, and so did aborting its multipart upload', {
      cause: abortError,
    });
  }
}
