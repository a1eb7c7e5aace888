import { Agent } from 'node:http';
import type { BenchStack } from './bench-stack.ts';
import { sendJson } from './http-load.ts';
import { percentile } from './results-table.ts';
import { spsPostRequest } from './scheduled-post.ts';
import { StatusReceipts, statusText } from './status-receipts.ts';

export interface NowLatencyResult {
  expected: number;
  /** Posts the simulator received. */
  published: number;
  p50Ms: number;
  p90Ms: number;
}

/** How long one post may take to reach the simulator before the measure counts it as lost. */
const givenUpAfterMs = 10_000;

/**
 * `POST /posts` type now, one post at a time, on an otherwise idle stack: the time from sending
 * the request to the simulator receiving the status (the answer, the queue, the worker and the
 * platform call). Each post waits for the previous one's status, so none queues behind another.
 */
export async function measureNowLatency(stack: BenchStack, count: number, tag: string): Promise<NowLatencyResult> {
  const receipts = new StatusReceipts(stack.simulator, tag);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  try {
    for (let index = 0; index < count; index += 1) {
      const content = statusText(tag, index);
      const posts = [{ integration: { id: stack.main.channelId }, value: [{ content }] }];
      const body = JSON.stringify({ type: 'now', posts });
      const sentAt = Date.now();
      const answer = await sendJson(agent, spsPostRequest(stack, body));
      if (answer.status < 200 || answer.status > 299) {
        throw new Error(`POST /posts type now answered ${answer.status}: ${answer.body.slice(0, 300)}`);
      }
      await receipts.waitForStatus(index, sentAt + givenUpAfterMs);
      const receivedAt = receipts.receivedAt.get(index);
      if (receivedAt !== undefined) latencies.push(receivedAt - sentAt);
    }
  } finally {
    receipts.stop();
    agent.destroy();
  }
  const [p50Ms, p90Ms] = [percentile(latencies, 50), percentile(latencies, 90)];
  return { expected: count, published: latencies.length, p50Ms, p90Ms };
}
