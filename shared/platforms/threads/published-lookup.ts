import { z } from 'zod';
import type { PublishResult } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { provider, type ThreadsGraph } from './threads-graph.ts';

/**
 * Finding the post a container became when Threads published it but its answer never reached
 * us: Threads has no link from a container to its media, so the profile's own recent items are
 * searched for the part's text, published after the container was made.
 */

const listed = z.object({
  data: z.array(z.object({
    id: z.string().min(1),
    text: z.string().optional(),
    timestamp: z.string(),
    permalink: z.string(),
    replied_to: z.object({ id: z.string() }).optional(),
  })),
});

/** Clocks differ between SPS and Meta: an item stamped a little before the container still counts. */
const clockSlackMs = 5 * 60_000;

/** Graph writes `2026-11-25T10:00:00+0000`; Date.parse wants the offset with a colon. */
function graphTime(value: string): number {
  return Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}

export interface PublishedLookup {
  text: string;
  /** The part this one replies to; null for the first part, which is a post of the profile. */
  parentId: string | null;
  /** When the container was made; the post cannot be older. */
  containerMadeAt: Date;
  containerId: string;
}

/**
 * The one item matching the part, or PlatformError `unconfirmed`: none found (Threads may not
 * list it yet, or changed the text) or several (which one is ours cannot be told).
 */
export async function findPublished(graph: ThreadsGraph, lookup: PublishedLookup): Promise<PublishResult> {
  const fields = 'id,text,timestamp,permalink';
  const answer = lookup.parentId === null
    ? await graph.get('/me/threads', { fields, limit: '50' }, listed, 'the profile\'s threads')
    : await graph.get('/me/replies', { fields: `${fields},replied_to`, limit: '50' }, listed, 'the profile\'s replies');
  const since = lookup.containerMadeAt.getTime() - clockSlackMs;
  const matches = answer.data.filter((item) =>
    (item.text ?? '').trim() === lookup.text.trim()
    && graphTime(item.timestamp) >= since
    && (lookup.parentId === null || item.replied_to?.id === lookup.parentId));
  const [match] = matches;
  if (match !== undefined && matches.length === 1) return { releaseId: match.id, releaseURL: match.permalink };
  const found = matches.length === 0 ? 'no item with its text' : `${String(matches.length)} items with its text`;
  const message = `Threads published container ${lookup.containerId} but its answer was lost, and the profile shows `
    + `${found}; check the profile and link the item`;
  throw new PlatformError({ kind: 'unconfirmed', provider, message });
}
