import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Database } from '../../shared/db/database.ts';
import { api } from './fixtures.ts';
import { waitFor } from './stack.ts';

/** A media of the organization's library, as POST /posts refers to it. */
export interface UploadedMedia {
  id: string;
  path: string;
}

/** Uploads a file through POST /upload, as an API client does, and expects it inspected at once. */
export async function uploadFile(baseUrl: string, apiKey: string, file: string): Promise<UploadedMedia> {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)]), path.basename(file));
  const response = await fetch(`${baseUrl}/api/public/v1/upload`, {
    method: 'POST', body: form, headers: { Authorization: apiKey },
  });
  expect(response.status).toBe(201);
  const { id, path: served } = await response.json() as UploadedMedia;
  return { id, path: served };
}

/** One part of a thread: its text, or its text and media. */
export type ThreadPart = string | { content: string; image?: UploadedMedia[] };

/**
 * Sends a thread of `parts` to one channel for publishing now and answers the api's answer as it
 * is: for the tests of what POST /posts refuses before anything reaches the platform.
 */
export function postNow(
  baseUrl: string,
  org: { apiKey: string; channelId: string },
  parts: ThreadPart[],
  settings: Record<string, unknown> = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const value = parts.map((part) => (typeof part === 'string' ? { content: part } : part));
  return api(baseUrl, org.apiKey, '/api/public/v1/posts', {
    method: 'POST',
    body: { type: 'now', posts: [{ integration: { id: org.channelId }, settings, value }] },
  });
}

/** Posts a thread of `parts` to one channel for publishing now; returns the root post's id. */
export async function publishNow(
  baseUrl: string,
  org: { apiKey: string; channelId: string },
  parts: ThreadPart[],
  settings: Record<string, unknown> = {},
): Promise<string> {
  const response = await postNow(baseUrl, org, parts, settings);
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
