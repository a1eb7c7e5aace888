// The baseline of the media inspection row (issue 31): a bare BullMQ worker taking the same job
// shape as SPS's process-media ({organizationId, mediaId, kind}) off a queue of its own, on the
// same Redis and MongoDB-wire server. It reads the media document with the raw driver, runs
// ffprobe, has ffmpeg make the same poster frame (same seek, codec and quality as SPS's
// posterFrame), writes it beside the video on the same local disk, and saves the probe's fields
// and the poster on the document with one updateOne. No time limits, failure reasons, webhook
// events or logging: what any worker inspecting an upload must spend at least.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { MongoClient, ObjectId } from 'mongodb';
import { z } from 'zod';
import { runBaselineWorker } from './baseline-worker.ts';

const env = z.object({
  REDIS_URL: z.string().regex(/^redis:\/\//),
  QUEUE_PREFIX: z.string().min(1),
  BARE_QUEUE: z.string().min(1),
  MONGO_URL: z.string().regex(/^mongodb:\/\//),
  /** The folder the video was stored in and the poster goes to, and the URL it is served at. */
  BARE_STORAGE_DIR: z.string().min(1),
  BARE_STORAGE_URL: z.url(),
  /** SPS's MEDIA_CONCURRENCY, so both take jobs alike (the row sends one at a time anyway). */
  MEDIA_CONCURRENCY: z.coerce.number().int().positive(),
}).parse(process.env);

const objectId = z.string().regex(/^[0-9a-f]{24}$/);
const jobData = z.object({ organizationId: objectId, mediaId: objectId, kind: z.literal('inspect') });
const storedMedia = z.object({ storageKey: z.string().regex(/^[\w/-]+\.mp4$/) });
/** The part of ffprobe's JSON the document keeps, as SPS keeps it. */
const probeOutput = z.object({
  streams: z.array(z.object({
    codec_type: z.string().optional(),
    codec_name: z.string().optional(),
    profile: z.string().optional(),
    width: z.number().optional(),
    height: z.number().optional(),
    avg_frame_rate: z.string().optional(),
  })),
  format: z.object({ duration: z.string(), bit_rate: z.string().optional() }),
});

const run = promisify(execFile);
const mongo = await MongoClient.connect(env.MONGO_URL);
const media = mongo.db().collection('media');

/** "30000/1001" → 29.97 */
function frameRate(value: string | undefined): number | null {
  const [numerator, denominator] = (value ?? '').split('/').map(Number);
  if (numerator === undefined || denominator === undefined || denominator === 0) return null;
  return Math.round((numerator / denominator) * 1000) / 1000;
}

/** One JPEG frame at `atSeconds`, streamed by ffmpeg into `target`. */
async function writePoster(input: string, atSeconds: number, target: string): Promise<void> {
  const ffmpeg = spawn('ffmpeg', [
    '-v', 'error', '-ss', String(atSeconds), '-i', input,
    '-an', '-vcodec', 'mjpeg', '-frames:v', '1', '-q:v', '3', '-f', 'image2', 'pipe:1',
  ], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [[code]] = await Promise.all([
    once(ffmpeg, 'exit') as Promise<[number | null]>,
    pipeline(ffmpeg.stdout, createWriteStream(target)),
  ]);
  if (code !== 0) throw new Error(`ffmpeg exited with ${String(code)} making the poster of ${input}`);
}

const worker = new Worker(env.BARE_QUEUE, async (job) => {
  const { mediaId } = jobData.parse(job.data);
  const _id = new ObjectId(mediaId);
  const { storageKey } = storedMedia.parse(await media.findOne({ _id }));
  const file = path.join(env.BARE_STORAGE_DIR, ...storageKey.split('/'));
  const probed = await run('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file]);
  const probe = probeOutput.parse(JSON.parse(probed.stdout));
  const video = probe.streams.find((stream) => stream.codec_type === 'video');
  const audio = probe.streams.find((stream) => stream.codec_type === 'audio');
  const durationSeconds = Number(probe.format.duration);
  const thumbnailKey = storageKey.replace(/\.mp4$/, '-poster.jpg');
  // SPS's seek: a second in, or halfway through a shorter clip.
  const poster = path.join(env.BARE_STORAGE_DIR, ...thumbnailKey.split('/'));
  await writePoster(file, Math.min(1, durationSeconds / 2), poster);
  await media.updateOne({ _id }, {
    $set: {
      width: video?.width ?? null, height: video?.height ?? null, durationSeconds,
      videoCodec: video?.codec_name ?? null, videoProfile: video?.profile ?? null,
      audioCodec: audio?.codec_name ?? null, frameRate: frameRate(video?.avg_frame_rate),
      bitRate: probe.format.bit_rate === undefined ? null : Number(probe.format.bit_rate),
      thumbnailKey, thumbnail: `${env.BARE_STORAGE_URL}/${thumbnailKey}`,
      status: 'ready', error: null, errorReason: null, updatedAt: new Date(),
    },
  });
}, {
  connection: new Redis(env.REDIS_URL, { maxRetriesPerRequest: null }),
  prefix: env.QUEUE_PREFIX,
  concurrency: env.MEDIA_CONCURRENCY,
});
await runBaselineWorker('bare inspection worker', worker, () => mongo.close());
