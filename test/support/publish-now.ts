import { expect } from 'vitest';
import type { Database } from '../../shared/db/database.ts';
import { api } from './fixtures.ts';
import { waitFor } from './stack.ts';

/** Posts a thread of `texts` to one channel for publishing now; returns the root post's id. */
export async function publishNow(
  baseUrl: string,
  org: { apiKey: string; channelId: string },
  texts: string[],
  settings: Record<string, unknown> = {},
): Promise<string> {
  const response = await api(baseUrl, org.apiKey, '/api/public/v1/posts', {
    method: 'POST',
    body: {
      type: 'now',
      posts: [{ integration: { id: org.channelId }, settings, value: texts.map((content) => ({ content })) }],
    },
  });
  expect(response.status).toBe(201);
  return (response.body as { postId: string }[])[0]?.postId ?? '';
}

/** Every part of the thread, in order, once each is published or the post failed. */
export function settledParts(db: Database, postId: string) {
  return waitFor(async () => {
    const parts = await db.posts
      .find({ $or: [{ _id: postId }, { rootPostId: postId }] })
      .sort({ position: 1 })
      .lean();
    const done = parts.every((part) => part.state === 'PUBLISHED') || parts.some((part) => part.state === 'ERROR');
    return done ? parts : undefined;
  }, { what: `post ${postId} to settle`, timeoutMs: 30_000 });
}
