import type { MastodonSimulator } from '../simulators/mastodon/mastodon-simulator.ts';
import type { TestContext } from '../support/test-context.ts';

/** What became of one thread, on our side and on the platform's. */
export interface ThreadOutcome {
  postId: string;
  /** The root's state; a thread whose replies are still queued counts as QUEUE. */
  state: string;
  /** PUBLISHED with its notification, or ERROR with its notification. */
  settled: boolean;
  /** Statuses on the platform beyond one per part. */
  duplicates: number;
  /** Settled, no duplicate, and our release ids are the platform's statuses, each replying to the previous part. */
  consistent: boolean;
  problem: string | null;
  /** The error a failed part records: why the thread is ERROR, for a failure's message. */
  failure: string | null;
}

/** Reads every thread's parts and the organization's notifications, and checks them against the simulator. */
export async function threadOutcomes(
  ctx: TestContext,
  simulator: MastodonSimulator,
  organizationId: string,
  threads: { postId: string; parts: string[] }[],
): Promise<ThreadOutcome[]> {
  const notifications = (await ctx.db.notifications.find({ organizationId }).lean()).map((notice) => notice.content);
  return Promise.all(threads.map(async (thread): Promise<ThreadOutcome> => {
    const stored = [
      await ctx.db.posts.findById(thread.postId).lean(),
      ...await ctx.db.posts.find({ rootPostId: thread.postId }).sort({ position: 1 }).lean(),
    ];
    const onPlatform = thread.parts.map((text) => simulator.statuses.filter((status) => status.text === text));
    const duplicates = onPlatform.reduce((total, statuses) => total + Math.max(0, statuses.length - 1), 0);
    const root = stored[0];
    const states = stored.map((part) => part?.state ?? 'MISSING');
    const allPublished = states.every((value) => value === 'PUBLISHED');
    const state = states.includes('ERROR') ? 'ERROR' : allPublished ? 'PUBLISHED' : (root?.state ?? 'MISSING');
    const recorded = stored.find((part) => part?.state === 'ERROR')?.error ?? null;
    const failure = recorded ?? '\u0000';
    const told = state === 'PUBLISHED'
      ? notifications.includes(`Your post was published on Mastodon at ${root?.releaseURL ?? ''}`)
      : state === 'ERROR' && notifications.some((content) => content.startsWith('Your post could not be published')
        && content.includes(failure));
    const settled = (state === 'PUBLISHED' || state === 'ERROR') && told;

    let problem: string | null = settled ? null : `state ${state}${told ? '' : ', no notification'}`;
    if (problem === null && duplicates > 0) problem = `${duplicates} duplicate statuses`;
    if (problem === null) {
      let previousStatus: string | null = null;
      for (const [index, part] of stored.entries()) {
        const statuses = onPlatform[index] ?? [];
        const releaseId = part?.releaseId ?? null;
        if (releaseId === null) {
          // Not published on our side: the platform must not have it either.
          if (statuses.length > 0) { problem = `part ${index + 1} is on the platform but not recorded`; break; }
          continue;
        }
        const status = statuses[0];
        if (status?.id !== releaseId) {
          problem = `part ${index + 1} records ${releaseId}, the platform has ${status?.id ?? 'nothing'}`;
          break;
        }
        if (status.in_reply_to_id !== previousStatus) {
          const repliesTo = status.in_reply_to_id ?? 'nothing';
          problem = `part ${index + 1} replies to ${repliesTo}, not ${previousStatus ?? 'nothing'}`;
          break;
        }
        previousStatus = status.id;
      }
    }
    return {
      postId: thread.postId, state, settled, duplicates, consistent: problem === null, problem, failure: recorded,
    };
  }));
}
