import type { PlatformRemoval } from '../kit/platform-removal.ts';

/**
 * LinkedIn and LinkedIn Page: DELETE /rest/posts/{urn} removes the post and, with it, the
 * comments a thread's later parts became, so only the first part is called for
 * (linkedin-posts.ts, remove()).
 */
export const linkedinRemoval: PlatformRemoval = {
  supported: true,
  method: 'delete',
  note: 'a thread\'s comments go with its post',
  laterPartsGoWithFirst: true,
};
