import type { BenchStack } from './bench-stack.ts';
import type { JsonRequest } from './http-load.ts';

/** The `POST /posts` body of one single-part post on one channel, due at `date`. */
export function scheduledPostBody(channelId: string, date: Date, content: string): string {
  const posts = [{ integration: { id: channelId }, value: [{ content }] }];
  return JSON.stringify({ type: 'schedule', date: date.toISOString(), posts });
}

/** That post sent to SPS's api as the benchmark organization. */
export function spsPostRequest(stack: BenchStack, body: string): JsonRequest {
  return { url: `${stack.apiUrl}/posts`, headers: { Authorization: stack.main.apiKey }, body };
}
