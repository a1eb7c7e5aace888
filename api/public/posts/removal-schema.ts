import { z } from 'zod';
import { partRemovalStates } from '../../../shared/domain/removal/removal-states.ts';
import type { PostRemovalView } from '../../../shared/domain/removal/removal-view.ts';

export const partRemovalSchema = z.object({
  partId: z.string(),
  position: z.number().int().describe('0 for the post, 1.. for its thread replies or comments'),
  releaseId: z.string().nullable().describe('The platform item the part became; null when never published'),
  state: z.enum(partRemovalStates).describe(
    'queued (the worker will remove it), removing, removed (the platform no longer shows it), failed '
    + '(category, message), not_published (nothing to remove), unconfirmed (the platform may have it under '
    + 'an id SPS does not know), unsupported (the platform cannot remove it, or SPS does not do it yet: reason)',
  ),
  method: z.string().nullable().describe('How the platform removes: delete, unpublish (hidden, kept as a draft) or '
    + 'trash (in the platform\'s bin); null when it does not'),
  reason: z.string().nullable().describe('Why the part is not removed (unsupported, not_published, unconfirmed)'),
  category: z.string().nullable().describe('A failed removal\'s failure category (as post.failed\'s), else null'),
  message: z.string().nullable().describe('A failed removal\'s message from the platform, else null'),
  at: z.iso.datetime().describe('When the state was written'),
});

export const postRemovalSchema: z.ZodType<PostRemovalView> = z.object({
  postId: z.string(),
  channelId: z.string(),
  provider: z.string(),
  done: z.boolean().describe('True once no part is queued or being removed'),
  parts: z.array(partRemovalSchema).describe('Every part of the post on its channel, in thread order'),
}).describe('Taking the post off its platform (DELETE /posts/:id?onPlatform=true): what became of each part');
