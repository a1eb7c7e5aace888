import { z } from 'zod';
import { createPosts, type CreatePostsDeps, type CreatePostsInput } from '../../../shared/domain/posts/create-posts.ts';
import { getPost } from '../../../shared/domain/posts/post-queries.ts';
import type { PostState } from '../../../shared/db/models/post.ts';
import { DomainError } from '../../../shared/errors.ts';
import type { PlainKey, Translate } from '../i18n/translate.ts';

/**
 * The new time as a form or the calendar sends it: `2026-12-01T09:30` from a datetime-local field
 * (read as UTC, as the dashboard writes every time), or an ISO instant with its offset from the
 * calendar's drag (FullCalendar's toISOString).
 */
const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** The move form in the reader's words: a refusal names the problem in them. */
export const moveFormIn = (t: Translate) => z.object({
  publish_at: z.string({ error: t('post.moveTimeMissing') })
    .regex(dateTimePattern, t('post.moveTimeFormat'))
    .transform((text, check) => {
      const zoned = /(Z|[+-]\d{2}:\d{2})$/.test(text) ? text : `${text}Z`;
      const date = new Date(zoned);
      // Date rolls 30 February over into March: the written day and time must be the ones read back.
      const [year, month, day, hour, minute] = text.split(/[-T:]/).map(Number);
      const calendarDay = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 0));
      const exists = calendarDay.getUTCMonth() === (month ?? 0) - 1 && calendarDay.getUTCDate() === day
        && (hour ?? 99) < 24 && (minute ?? 99) < 60;
      if (!exists || Number.isNaN(date.getTime())) {
        check.addIssue({ code: 'custom', message: t('post.moveNoSuchTime', { text }) });
        return z.NEVER;
      }
      return date;
    }),
});

/** Why a post in another state than scheduled cannot move, one whole sentence per state. */
const notMovable: Record<Exclude<PostState, 'QUEUE'>, PlainKey> = {
  DRAFT: 'post.notMovableDraft',
  PUBLISHED: 'post.notMovablePublished',
  ERROR: 'post.notMovableError',
};

/**
 * Moves a scheduled post to another time the way the API's clients edit a post's date: POST /posts
 * with `value[0].id` and type `schedule`, its stored parts, settings and tags given back as they are.
 * createPosts checks the platform's rules again, cancels the old job and queues the new one, and
 * tells post.updated; a recurring occurrence's later ones follow it (seriesFields).
 */
export async function reschedulePost(
  deps: CreatePostsDeps,
  t: Translate,
  organizationId: string,
  postId: string,
  publishAt: Date,
): Promise<{ id: string; publishDate: string }> {
  const { root, parts } = await getPost(deps.db, organizationId, postId);
  if (root.state !== 'QUEUE') throw new DomainError('conflict', t(notMovable[root.state]));
  if (publishAt.getTime() <= deps.now().getTime()) throw new DomainError('validation_failed', t('post.moveIntoPast'));
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
