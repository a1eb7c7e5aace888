import { randomUUID } from 'node:crypto';
import { Types } from 'mongoose';
import { configSchema } from '../../shared/config/config.ts';
import { defaultJobOptions } from '../../shared/queue/queues.ts';
import type { BenchStack } from './bench-stack.ts';
import { createDuePosts, estimateCreationMs } from './due-posts.ts';
import { sendAll } from './http-load.ts';
import { percentile } from './results-table.ts';
import { scheduledPostBody, spsPostRequest } from './scheduled-post.ts';
import { StatusReceipts, statusText } from './status-receipts.ts';

/** How the due times fall: evenly over `spreadMs`, or all within one second (a burst). */
export type LatenessShape = { kind: 'spread'; spreadMs: number } | { kind: 'burst' };

/**
 * How SPS's posts are made: through `POST /posts` at `connections` at a time, given the rate it was
 * measured at; or with the api's `createPosts` in this process (the same code, no HTTP), which
 * makes 10,000 posts in a fraction of the time.
 */
export type LatenessCreation = { via: 'api'; ratePerSecond: number } | { via: 'createPosts' };

export interface LatenessSettings {
  posts: number;
  shape: LatenessShape;
  creation: LatenessCreation;
  /** The first post is due this long after the last one was (expected to be) created. */
  leadMs: number;
  /** How long after the last due time the measure waits for stragglers. */
  graceMs: number;
  connections: number;
}

export interface LatenessResult {
  expected: number;
  published: number;
  p50Ms: number;
  p99Ms: number;
  /** Time left between the last creation and the first due time; negative if creating took too long. */
  headroomMs: number;
}

/** A burst's posts are due within this long: "in the same second". */
const burstMs = 1000;

/** A few words for the table: "600 posts over 30 s", "10,000 posts due in the same second". */
export function shapeLabel(posts: number, shape: LatenessShape): string {
  const count = posts.toLocaleString('en');
  return shape.kind === 'burst'
    ? `${count} posts due in the same second`
    : `${count} posts over ${shape.spreadMs / 1000} s`;
}

function dueTimes(start: number, settings: LatenessSettings): number[] {
  const spreadMs = settings.shape.kind === 'burst' ? burstMs : settings.shape.spreadMs;
  return Array.from({ length: settings.posts }, (_, index) => start + Math.floor((index * spreadMs) / settings.posts));
}

/** Waits for the statuses (up to `graceMs` after the last due time) and measures how late each arrived. */
async function collect(
  receipts: StatusReceipts,
  dues: number[],
  graceMs: number,
  headroomMs: number,
): Promise<LatenessResult> {
  await receipts.waitFor(dues.length, (dues.at(-1) ?? Date.now()) + graceMs);
  receipts.stop();
  const lateness = [...receipts.receivedAt].map(([index, at]) => at - (dues[index] ?? Number.NaN));
  const [p50Ms, p99Ms] = [percentile(lateness, 50), percentile(lateness, 99)];
  return { expected: dues.length, published: lateness.length, p50Ms, p99Ms, headroomMs };
}

/**
 * SPS: scheduled posts with due times of the given shape, created as `creation` says, published
 * by the workers process to the simulator; lateness is when the simulator received a post minus
 * its due time.
 */
export async function measureSpsLateness(
  stack: BenchStack,
  settings: LatenessSettings,
  tag: string,
): Promise<LatenessResult> {
  const { main } = stack;
  const { creation } = settings;
  // Half as long again as the sample predicts (twice the measured rate through the api), so
  // creating never runs into the first due time.
  const creationMs = creation.via === 'api'
    ? (2 * 1000 * settings.posts) / Math.max(1, creation.ratePerSecond)
    : 1.5 * await estimateCreationMs(main, main.channelId, settings.posts, settings.connections);
  const dues = dueTimes(Date.now() + creationMs + settings.leadMs, settings);
  const receipts = new StatusReceipts(stack.simulator, tag);
  let headroomMs: number;
  if (creation.via === 'api') {
    const requests = dues.map((due, index) =>
      spsPostRequest(stack, scheduledPostBody(main.channelId, new Date(due), statusText(tag, index))));
    await sendAll(requests, settings.connections);
    headroomMs = (dues[0] ?? 0) - Date.now();
  } else {
    const text = (index: number): string => statusText(tag, index);
    headroomMs = await createDuePosts(main, main.channelId, dues, text, settings.connections);
  }
  return collect(receipts, dues, settings.graceMs, headroomMs);
}

/** The baseline: bare BullMQ delayed jobs with due times of the same shape, run by the bare publish worker. */
export async function measureBareLateness(
  stack: BenchStack,
  settings: LatenessSettings,
  tag: string,
): Promise<LatenessResult> {
  const start = Date.now() + settings.leadMs;
  const dues = dueTimes(start, settings);
  const receipts = new StatusReceipts(stack.simulator, tag);
  const now = Date.now();
  await stack.bareQueues.publish.addBulk(dues.map((due, index) => ({
    name: 'publish', data: { text: statusText(tag, index) },
    opts: { delay: Math.max(0, due - now), removeOnComplete: true },
  })));
  return collect(receipts, dues, settings.graceMs, start - Date.now());
}

/** SPS's publish job options (attempts, backoff, finished jobs trimmed), for a baseline's jobs to match. */
const spsJobOptions = defaultJobOptions({
  attempts: configSchema.shape.PUBLISH_ATTEMPTS.parse(undefined),
  backoffMs: configSchema.shape.PUBLISH_BACKOFF_MS.parse(undefined),
});

/**
 * The fair baseline of a burst: post documents written straight into SPS's collection (as the
 * bare post server writes them), each with a delayed job of SPS's options, run by the durable
 * worker, which reads the post, posts it, saves the result and inserts the notification.
 */
export async function measureDurableLateness(
  stack: BenchStack,
  settings: LatenessSettings,
  tag: string,
): Promise<LatenessResult> {
  const { main } = stack;
  const start = Date.now() + settings.leadMs;
  const dues = dueTimes(start, settings);
  const organizationId = new Types.ObjectId(main.organizationId);
  const channelId = new Types.ObjectId(main.channelId);
  const now = new Date();
  const documents = dues.map((due, index) => ({
    _id: new Types.ObjectId(), organizationId, channelId, group: randomUUID(), rootPostId: null, position: 0,
    content: statusText(tag, index), media: [], settings: { __type: 'mastodon' }, tags: [],
    publishDate: new Date(due), state: 'QUEUE', deletedAt: null, createdAt: now, updatedAt: now,
  }));
  await main.db.posts.collection.insertMany(documents);
  const receipts = new StatusReceipts(stack.simulator, tag);
  const queuedAt = Date.now();
  await stack.bareQueues.durablePublish.addBulk(documents.map((document) => ({
    name: 'publish-post', data: { postId: document._id.toHexString() },
    opts: { ...spsJobOptions, delay: Math.max(0, document.publishDate.getTime() - queuedAt) },
  })));
  return collect(receipts, dues, settings.graceMs, start - Date.now());
}
