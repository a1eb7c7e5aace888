import { z } from 'zod';
import type { PartCheckpoint } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { provider, type WordpressRest, type WordpressSession } from './wordpress-rest.ts';

/**
 * WordPress takes no idempotency key, so a part reaches the site at most once in two steps:
 *
 * 1. The entry is created as a draft (readers see nothing yet) and its id is checkpointed at
 *    once (`postId`). Before the create, the attempt checkpoints when it sent (`sentAt`); an
 *    attempt that finds that mark without an id (the site made the draft but its answer was
 *    lost) looks among the user's own entries modified since the mark for one with the part's
 *    title and takes it, and creates only when there is none.
 * 2. The draft is published by updating its status, an update of a known id: repeating it
 *    after a lost answer changes nothing, so the public step happens once.
 *
 * WordPress writes the entry before it answers and lists from the same database, so a draft
 * made by an attempt whose answer was lost is in that list on the next attempt.
 */

const sentKey = 'sentAt';
const postKey = 'postId';
/** The site's clock and ours may differ; an entry this much older than the mark still counts. */
const clockSlackMs = 5 * 60_000;

const me = z.object({ id: z.number().int() });
const ownEntries = z.array(z.object({
  id: z.number().int(),
  title: z.object({ raw: z.string() }),
  content: z.object({ raw: z.string() }),
  /** The site's UTC time without a zone: `2026-11-25T04:56:42`. */
  modified_gmt: z.string(),
}));

export interface DraftStep {
  rest: WordpressRest;
  session: WordpressSession;
  /** REST base of the post type: `posts`, `pages`. */
  restBase: string;
  /** The entry's fields; title and content are what a lost draft is recognised by. */
  fields: { title: string; content: string } & Record<string, unknown>;
  checkpoint: PartCheckpoint;
  now: () => number;
}

const created = z.object({ id: z.number().int() });

/**
 * The draft an unanswered attempt made: the user's newest entries, by last change, with the
 * part's title and changed since `from`; the one with the content as sent is preferred, then
 * an only candidate (a plugin may rewrite content on save). Two others are not this part's.
 */
async function findDraft(step: DraftStep, from: number): Promise<number | null> {
  const { rest, session, restBase, fields } = step;
  const user = me.safeParse(await rest.call(session, {
    method: 'GET', route: '/wp/v2/users/me', query: { _fields: 'id' },
  }));
  const list = user.success
    ? ownEntries.safeParse(await rest.call(session, {
      method: 'GET',
      route: `/wp/v2/${restBase}`,
      query: {
        author: String(user.data.id),
        status: 'draft,pending,private,publish,future',
        context: 'edit',
        orderby: 'modified',
        order: 'desc',
        per_page: '50',
        _fields: 'id,title,content,modified_gmt',
      },
    }))
    : null;
  if (list === null || !list.success) {
    // Without the list SPS cannot tell whether the draft exists, and guessing could post it twice.
    throw unreadableAnswer(provider, 'WordPress answered the user\'s entries in a shape', { kind: 'unconfirmed' });
  }
  const candidates = list.data.filter((entry) => entry.title.raw === fields.title
    && Date.parse(`${entry.modified_gmt}Z`) >= from);
  const exact = candidates.find((entry) => entry.content.raw === fields.content);
  if (exact !== undefined) return exact.id;
  const [only, other] = candidates;
  return only !== undefined && other === undefined ? only.id : null;
}

/** Step 1: the draft's id, from the checkpoint, a lost earlier attempt, or a new create. */
export async function draftOnce(step: DraftStep): Promise<number> {
  const saved = Number(step.checkpoint.values[postKey]);
  if (Number.isInteger(saved) && saved > 0) return saved;
  const earlier = Date.parse(step.checkpoint.values[sentKey] ?? '');
  if (Number.isNaN(earlier)) {
    await step.checkpoint.save({ [sentKey]: new Date(step.now()).toISOString() });
  } else {
    // The first mark stays: looking from the earliest attempt covers every later one too.
    const found = await findDraft(step, earlier - clockSlackMs);
    if (found !== null) {
      await step.checkpoint.save({ [postKey]: String(found) });
      return found;
    }
  }
  const answer = created.safeParse(await step.rest.call(step.session, {
    method: 'POST',
    route: `/wp/v2/${step.restBase}`,
    json: { ...step.fields, status: 'draft' },
  }));
  if (!answer.success) {
    // The site made the entry if it answered 2xx: the next attempt's look-up finds it.
    const message = 'WordPress created the entry but answered without an id SPS could read';
    throw new PlatformError({ kind: 'retryable', provider, message });
  }
  await step.checkpoint.save({ [postKey]: String(answer.data.id) });
  return answer.data.id;
}
