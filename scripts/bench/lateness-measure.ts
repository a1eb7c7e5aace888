import type { BenchStack } from './bench-stack.ts';
import { sendAll } from './http-load.ts';
import { percentile } from './results-table.ts';
import { scheduledPostBody, spsPostRequest } from './scheduled-post.ts';
import { StatusReceipts, statusText } from './status-receipts.ts';

export interface LatenessSettings {
  posts: number;
  /** Due times are spread evenly over this long. */
  spreadMs: number;
  /** The first post is due this long after the last one was created. */
  leadMs: number;
  /** How long after the last due time the measure waits for stragglers. */
  graceMs: number;
  connections: number;
  /** SPS's measured POST /posts rate, to know how long creating the posts will take. */
  createRatePerSecond: number;
}

export interface LatenessResult {
  expected: number;
  published: number;
  p50Ms: number;
  p99Ms: number;
  /** Time left between the last creation and the first due time; negative if creating took too long. */
  headroomMs: number;
}

const dueTimes = (start: number, settings: LatenessSettings): number[] => Array.from(
  { length: settings.posts },
  (_, index) => start + Math.round((index * settings.spreadMs) / settings.posts),
);

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
 * SPS: the posts are created through `POST /posts` (type schedule) with due times spread over
 * `spreadMs`, and published by the workers process to the simulator; lateness is when the
 * simulator received a post minus its due time.
 */
export async function measureSpsLateness(
  stack: BenchStack,
  settings: LatenessSettings,
  tag: string,
): Promise<LatenessResult> {
  // Twice the time the measured rate predicts, so creating never runs into the first due time.
  const creationMs = (2 * 1000 * settings.posts) / Math.max(1, settings.createRatePerSecond);
  const dues = dueTimes(Date.now() + creationMs + settings.leadMs, settings);
  const receipts = new StatusReceipts(stack.simulator, tag);
  const requests = dues.map((due, index) =>
    spsPostRequest(stack, scheduledPostBody(stack.main.channelId, new Date(due), statusText(tag, index))));
  await sendAll(requests, settings.connections);
  return collect(receipts, dues, settings.graceMs, (dues[0] ?? 0) - Date.now());
}

/** The baseline: bare BullMQ delayed jobs with due times spread the same way, run by the bare publish worker. */
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
