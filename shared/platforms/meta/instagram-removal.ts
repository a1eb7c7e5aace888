import type { PlatformRemoval } from '../kit/platform-removal.ts';

/**
 * Both Instagram logins: Meta's Instagram Platform reference documents publishing, reading and
 * comment moderation, but no deletion of a published post (oauth-majors.md, section 4, has none
 * either). Meta's generated SDK specs do list a DELETE on IG media, with no permission and no page
 * behind it; SPS does not call what Meta does not document, so the answer is `cannot`.
 */
export const instagramRemoval: PlatformRemoval = {
  supported: false,
  why: 'cannot',
  reason: 'Instagram\'s API documents no way to delete a published post: the account deletes it in the Instagram app',
};
