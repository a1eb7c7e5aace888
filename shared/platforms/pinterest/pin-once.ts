import { z } from 'zod';
import type { PartCheckpoint } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, type PinterestApi } from './pinterest-api.ts';

/**
 * Creating a pin at most once. Pinterest takes no idempotency key on `POST /v5/pins`, so the
 * part's checkpoint marks the moment before the first create (`pinAttemptAt`), and an attempt
 * that finds the mark reads the board's latest pins for one with this part's title, description
 * and link, made since then, before creating again.
 */

export const pinAnswer = z.object({
  id: z.string().regex(/^\d+$/),
  created_at: z.string().optional(),
  board_id: z.string().optional(),
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  link: z.string().nullable().optional(),
});

export const pinsPage = z.object({ items: z.array(pinAnswer), bookmark: z.string().nullable().optional() });

export type Pin = z.infer<typeof pinAnswer>;

const attemptKey = 'pinAttemptAt';

/** Our clock and Pinterest's may differ by this much. */
const clockSlackMs = 2 * 60_000;

/** How many of the board's newest pins are read: more than a board gains while one retry waits. */
const lookupPageSize = '100';

/** What an earlier attempt sent: Pinterest shows an absent title or link as null or "". */
export interface SentPin {
  boardId: string;
  title: string;
  description: string;
  link: string;
}

const same = (shown: string | null | undefined, sent: string): boolean => (shown ?? '').trim() === sent.trim();

async function findPin(api: PinterestApi, sent: SentPin, since: number): Promise<Pin | null> {
  const path = `/v5/boards/${encodeURIComponent(sent.boardId)}/pins`;
  const page = await api({ method: 'GET', path, query: { page_size: lookupPageSize } }, pinsPage, 'the board\'s pins');
  return page.items.find((pin) => {
    const createdAt = pin.created_at === undefined ? Number.NaN : Date.parse(pin.created_at);
    const recent = Number.isNaN(createdAt) || createdAt >= since - clockSlackMs;
    return recent && same(pin.title, sent.title) && same(pin.description, sent.description)
      && same(pin.link, sent.link);
  }) ?? null;
}

/** The pin an earlier attempt at this part made, when one was made; null on a first attempt. */
export async function earlierPin(api: PinterestApi, checkpoint: PartCheckpoint, sent: SentPin): Promise<Pin | null> {
  const mark = Date.parse(checkpoint.values[attemptKey] ?? '');
  return Number.isNaN(mark) ? null : findPin(api, sent, mark);
}

/**
 * Creates the pin, having marked the part's checkpoint first (once: a later attempt keeps the
 * first attempt's time, so its look-up reaches back far enough).
 */
export async function createPin(checkpoint: PartCheckpoint, create: () => Promise<unknown>): Promise<Pin> {
  if (Number.isNaN(Date.parse(checkpoint.values[attemptKey] ?? ''))) {
    await checkpoint.save({ [attemptKey]: new Date().toISOString() });
  }
  const answer = pinAnswer.safeParse(await create());
  if (!answer.success) {
    // Pinterest made something; without its id, sending again could make a second pin.
    const message = 'Pinterest accepted the pin but answered without an id SPS could read';
    throw new PlatformError({ kind: 'unconfirmed', provider, message });
  }
  return answer.data;
}
