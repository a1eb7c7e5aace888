import { expect } from 'vitest';
import type { PostRemovalView } from '../../shared/domain/removal/removal-view.ts';
import { api } from './fixtures.ts';
import { waitFor } from './stack.ts';

/** A post as GET /posts/:id shows it while and after it is removed from its platform. */
export interface RemovedPostAnswer {
  id: string;
  deletedAt: string | null;
  removal: PostRemovalView | null;
}

/**
 * DELETE `path` (`posts/:id` or `posts/group/:group`) with `onPlatform=true` as a client does it:
 * a post whose publish job is still letting go of it (its parts already saved) answers 409, "try
 * again in a moment", so it is sent again until taken. Expects 200 and answers its body.
 */
export async function deleteOnPlatform(baseUrl: string, apiKey: string, path: string): Promise<unknown> {
  const url = `/api/public/v1/${path}?onPlatform=true`;
  const answer = await waitFor(async () => {
    const sent = await api(baseUrl, apiKey, url, { method: 'DELETE' });
    return sent.status === 409 ? undefined : sent;
  }, { what: `DELETE ${path} to be taken` });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

/** The post once the removal worker is done with every part. */
export function removalDone(
  baseUrl: string, apiKey: string, postId: string,
): Promise<RemovedPostAnswer & { removal: PostRemovalView }> {
  return waitFor(async () => {
    const answer = await api(baseUrl, apiKey, `/api/public/v1/posts/${postId}`);
    const { removal, ...post } = answer.body as RemovedPostAnswer;
    return answer.status === 200 && removal?.done === true ? { ...post, removal } : undefined;
  }, { what: `post ${postId}'s removal to finish` });
}
