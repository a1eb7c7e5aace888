// The media inspection row (issue 31): SPS's worker path for an uploaded video against a bare
// BullMQ worker doing the same work (scripts/bench/baselines/bare-inspection-worker.ts).
// SPS's side is the upload route's second half: the video is stored and its media document
// recorded by the api's own functions (streamIntoStorage, recordUploadedMedia), then its
// process-media job is queued by the api's MediaQueue; the running workers process takes it,
// probes the file, makes the poster frame, stores it and saves the document.
// Each job is timed from just before it is queued to the document's save, read from the saved
// document's updatedAt (stamped by the worker's clock as it sends the save; both sides stamp it
// the same way, on the same machine). Polling the document instead would add its interval to
// every figure and its queries to the machine's load.
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, QueueEvents, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { MongoClient, ObjectId } from 'mongodb';
import { z } from 'zod';
import type { Config } from '../../shared/config/config.ts';
import type { Database } from '../../shared/db/database.ts';
import { recordUploadedMedia, streamIntoStorage } from '../../shared/domain/media/store-media.ts';
import { MediaQueue } from '../../shared/queue/media-queue.ts';
import { mediaJobId, type MediaJobPayload } from '../../shared/queue/queues.ts';
import type { Storage } from '../../shared/storage/storage.ts';
import { newObjectKey } from '../../shared/storage/object-key.ts';
import { startProcess } from './bench-process.ts';
import { median } from './results-table.ts';

export interface InspectionSettings {
  /** SPS's configuration, as its workers process (already running) was started with. */
  config: Config;
  /** The environment the workers were started with; the bare worker gets the same servers. */
  env: NodeJS.ProcessEnv;
  db: Database;
  storage: Storage;
  organizationId: string;
  clips: readonly string[];
  /** Times each clip goes through each side. */
  repeats: number;
  /** Where the bare worker's storage folder is made. */
  work: string;
  log: (line: string) => void;
}

export interface InspectionResult {
  files: number;
  spsMs: number[];
  bareMs: number[];
  spsMedianMs: number;
  bareMedianMs: number;
  ratio: number;
}

/** The saved document as both sides leave it: ready, with a poster. */
const inspected = z.object({
  status: z.literal('ready'),
  width: z.number().positive(),
  durationSeconds: z.number().positive(),
  thumbnailKey: z.string().min(1),
  updatedAt: z.date(),
});

/** A job that has not settled within this is a failure of the run, not a slow figure. */
const jobTimeoutMs = 60_000;
/** Left between jobs, so a side's work after its save (completing the job, SPS's webhook check) weighs on no figure. */
const pauseMs = 150;

interface Side {
  name: string;
  /** Stores the clip and records its pending document; answers the job to queue. */
  prepare(clip: string): Promise<MediaJobPayload>;
  enqueue(payload: MediaJobPayload): Promise<Job>;
  events: QueueEvents;
  /** The media document as the job left it. */
  saved(mediaId: string): Promise<unknown>;
  /** The size of the poster frame the document names, read back from the side's storage. */
  posterBytes(key: string): Promise<number>;
}

async function timeJob(side: Side, clip: string): Promise<number> {
  const payload = await side.prepare(clip);
  const enqueuedAt = Date.now();
  const job = await side.enqueue(payload);
  await job.waitUntilFinished(side.events, jobTimeoutMs);
  const document = await side.saved(payload.mediaId);
  const result = inspected.safeParse(document);
  if (!result.success) {
    throw new Error(`${side.name}: media ${payload.mediaId} was not inspected: ${JSON.stringify(document)}`);
  }
  if (await side.posterBytes(result.data.thumbnailKey) === 0) {
    throw new Error(`${side.name}: the poster frame of media ${payload.mediaId} is empty`);
  }
  await sleep(pauseMs);
  return result.data.updatedAt.getTime() - enqueuedAt;
}

export async function measureInspection(settings: InspectionSettings): Promise<InspectionResult> {
  const { config, db, storage, organizationId, log } = settings;
  const prefix = config.QUEUE_PREFIX;
  const bareQueueName = 'bare-media';
  const bareDir = path.join(settings.work, 'bare-storage');
  const bareUrl = 'http://127.0.0.1/bare-storage';
  await mkdir(bareDir, { recursive: true });
  const bareWorker = startProcess([path.join(import.meta.dirname, 'baselines', 'bare-inspection-worker.ts')], {
    ...settings.env, BARE_QUEUE: bareQueueName, BARE_STORAGE_DIR: bareDir, BARE_STORAGE_URL: bareUrl,
    MEDIA_CONCURRENCY: String(config.MEDIA_CONCURRENCY),
  }, /bare inspection worker running/);
  // The producer fails fast as the api's does; the events connections block, so each has its own.
  const producer = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1 });
  const spsBlocking = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
  const bareBlocking = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
  const spsEvents = MediaQueue.events(spsBlocking, prefix);
  const bareEvents = new QueueEvents(bareQueueName, { connection: bareBlocking, prefix });
  const mediaQueue = new MediaQueue(producer, spsEvents, { prefix });
  const bareQueue = new Queue(bareQueueName, { connection: producer, prefix });
  const mongo = await MongoClient.connect(config.MONGO_URL);
  const bareMedia = mongo.db().collection('media');
  const limits = { maxImageBytes: config.MEDIA_MAX_IMAGE_BYTES, maxVideoBytes: config.MEDIA_MAX_VIDEO_BYTES };
  const sps: Side = {
    name: 'SPS',
    async prepare(clip) {
      // As POST /upload stores and records an upload, minus the HTTP request.
      const stored = await streamIntoStorage(storage, createReadStream(clip), limits);
      const media = await recordUploadedMedia(db, organizationId, stored, path.basename(clip));
      return { organizationId, mediaId: media._id.toString(), kind: 'inspect' };
    },
    enqueue: (payload) => mediaQueue.add(payload),
    events: spsEvents,
    saved: (mediaId) => db.media.findById(mediaId).lean(),
    posterBytes: async (key) => (await buffer(await storage.get(key))).length,
  };
  const bare: Side = {
    name: 'bare',
    async prepare(clip) {
      const key = newObjectKey('mp4');
      const file = path.join(bareDir, ...key.split('/'));
      await mkdir(path.dirname(file), { recursive: true });
      await copyFile(clip, file);
      const now = new Date();
      const { insertedId } = await bareMedia.insertOne({
        organizationId: new ObjectId(organizationId), name: path.basename(file), originalName: path.basename(clip),
        storageKey: key, path: `${bareUrl}/${key}`, mimeType: 'video/mp4', size: (await stat(file)).size,
        status: 'pending', createdAt: now, updatedAt: now,
      });
      return { organizationId, mediaId: insertedId.toHexString(), kind: 'inspect' };
    },
    // The job options that bear on a job that succeeds: its deterministic id and its attempts.
    enqueue: (payload) => bareQueue.add('process-media', payload, { jobId: mediaJobId(payload.mediaId), attempts: 2 }),
    events: bareEvents,
    saved: (mediaId) => bareMedia.findOne({ _id: new ObjectId(mediaId) }),
    posterBytes: async (key) => (await stat(path.join(bareDir, ...key.split('/')))).size,
  };
  try {
    await Promise.all([bareWorker.isReady, spsEvents.waitUntilReady(), bareEvents.waitUntilReady()]);
    const [firstClip] = settings.clips;
    if (firstClip === undefined) throw new Error('the inspection row needs at least one clip');
    // One job each first, untimed: the bare worker's first ffprobe and driver calls start cold.
    await timeJob(sps, firstClip);
    await timeJob(bare, firstClip);
    const spsMs: number[] = [];
    const bareMs: number[] = [];
    let round = 0;
    for (let repeat = 0; repeat < settings.repeats; repeat += 1) {
      log(`inspecting ${settings.clips.length} clips on both sides (pass ${repeat + 1} of ${settings.repeats})...`);
      for (const clip of settings.clips) {
        // The side that goes first alternates, so a busy moment of the machine weighs on both alike.
        round += 1;
        const order = round % 2 === 1 ? [sps, bare] : [bare, sps];
        for (const side of order) (side === sps ? spsMs : bareMs).push(await timeJob(side, clip));
      }
    }
    const [spsMedianMs, bareMedianMs] = [median(spsMs), median(bareMs)];
    const ratio = +(spsMedianMs / bareMedianMs).toFixed(3);
    return { files: settings.clips.length, spsMs, bareMs, spsMedianMs, bareMedianMs, ratio };
  } finally {
    await bareWorker.stop();
    await Promise.all([mediaQueue.close(), bareQueue.close(), spsEvents.close(), bareEvents.close()]);
    await Promise.all([producer.quit(), spsBlocking.quit(), bareBlocking.quit(), mongo.close()]);
  }
}
