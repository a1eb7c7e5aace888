import { z } from 'zod';
import type { PartCheckpoint } from '../kit/platform-adapter.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';

/**
 * Uploading a shot at most once. `POST /v2/shots` takes no idempotency key, so the part's
 * checkpoint marks the moment before the first upload (`shotAttemptAt`); an attempt that finds
 * the mark reads the player's shots (`GET /v2/user/shots`, newest first) for one with this
 * part's title published since then before uploading again. Dribbble rewrites descriptions
 * (links made clickable, HTML trimmed), so the title is what is compared.
 */

export const shotsAnswer = z.array(z.object({
  id: z.number().int(),
  title: z.string().nullable().optional(),
  html_url: z.string().optional(),
  published_at: z.string().nullable().optional(),
}));

const attemptKey = 'shotAttemptAt';

/** Our clock and Dribbble's may differ by this much. */
const clockSlackMs = 2 * 60_000;

/** Dribbble's largest page: more shots than a player posts while one retry waits. */
const lookupQuery = { per_page: '100' };

/** The id of the shot an earlier attempt at this part made, or null (a first attempt, or none made). */
export async function earlierShot(
  checkpoint: PartCheckpoint,
  title: string,
  readShots: (query: Record<string, string>) => Promise<unknown>,
): Promise<string | null> {
  const mark = Date.parse(checkpoint.values[attemptKey] ?? '');
  if (Number.isNaN(mark)) return null;
  const shots = shotsAnswer.safeParse(await readShots(lookupQuery));
  if (!shots.success) {
    // Without the list SPS cannot tell whether the shot is on Dribbble; guessing could post it twice.
    throw unreadableAnswer('dribbble', 'Dribbble answered the player\'s shots in a shape', { kind: 'unconfirmed' });
  }
  const found = shots.data.find((shot) => {
    const publishedAt = Date.parse(shot.published_at ?? '');
    // A shot still processing may have no publication time yet: its title alone decides.
    const recent = Number.isNaN(publishedAt) || publishedAt >= mark - clockSlackMs;
    return recent && (shot.title ?? '').trim() === title.trim();
  });
  return found === undefined ? null : String(found.id);
}

/** Marks the part before its upload (once: a later attempt keeps the first attempt's time). */
export async function shotAttempt(checkpoint: PartCheckpoint): Promise<void> {
  if (!Number.isNaN(Date.parse(checkpoint.values[attemptKey] ?? ''))) return;
  await checkpoint.save({ [attemptKey]: new Date().toISOString() });
}
