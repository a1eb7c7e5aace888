import { z } from 'zod';
import { createPosts, type CreatePostsDeps, type CreatePostsInput } from '../../../shared/domain/posts/create-posts.ts';
import { getPost } from '../../../shared/domain/posts/post-queries.ts';
import { DomainError } from '../../../shared/errors.ts';

/**
 * The new time as a form or the calendar sends it: `2026-12-01T09:30` from a datetime-local field
 * (read as UTC, as the dashboard writes every time), or an ISO instant with its offset from the
 * calendar's drag (FullCalendar's toISOString).
 */
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

export const moveForm = z.object({
  publish_at: z.string({ error: 'choose the new publish date and time' })
    .regex(dateTimePattern, 'write the date and time as YYYY-MM-DDTHH:MM')
    .transform((text, check) => {
      const zoned = /(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text}Z`;
      const date = new Date(zoned);
      // Date rolls 30 February over into March: the written day and time must be the ones read back.
      const [year, month, day, hour, minute] = text.split(/[-T:]/).map(Number);
      const calendarDay = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 0));
      const exists = calendarDay.getUTCMonth() === (month ?? 0) - 1 && calendarDay.getUTCDate() === day
        && (hour ?? 99) < 24 && (minute ?? 99) < 60;
      if (!exists || Number.isNaN(date.getTime())) {
        check.addIssue({ code: 'custom', message: `${text} is not a date and time that exists` });
        return z.NEVER;
      }
      return date;
    }),
});

/**
 * Moves a scheduled post to another time the way the API's clients edit a post's date: POST /posts
 * with `value[0].id` and type `schedule`, its stored parts, settings and tags given back as they are.
 * createPosts checks the platform's rules again, cancels the old job and queues the new one, and
 * tells post.updated; a recurring occurrence's later ones follow it (seriesFields).
 */
export async function reschedulePost(
  deps: CreatePostsDeps,
  organizationId: string,
  postId: string,
  publishAt: Date,
): Promise<{ id: string; publishDate: string }> {
  const { root, parts } = await getPost(deps.db, organizationId, postId);
  if (root.state !== 'QUEUE') {
    throw new DomainError('conflict', `only a scheduled post can be moved; this one is ${root.state.toLowerCase()}`);
  }
  if (publishAt.getTime() <= deps.now().getTime()) {
    throw new DomainError('validation_failed', 'choose a time in the future: a post cannot be moved into the past');
  }
  const { __type: _provider, ...settings } = (root.settings ?? {}) as Record<string, unknown>;
  const input: CreatePostsInput = {
    type: 'schedule',
    date: publishAt,
    tags: root.tags.map((tag) => ({ value: tag.value, label: tag.label })),
    posts: [{
      integration: { id: root.channelId.toString() },
      group: root.group,
      settings,
      value: parts.map((part, index) => ({
        ...(index === 0 ? { id: root._id.toString() } : {}),
        content: part.content,
        delay: part.delayMinutes,
        image: part.media.map((media) => ({
          id: media.id, path: media.path, alt: media.alt ?? undefined, thumbnail: media.thumbnail ?? undefined,
        })),
      })),
    }],
  };
  await createPosts(deps, organizationId, input);
  return { id: root._id.toString(), publishDate: publishAt.toISOString() };
}
