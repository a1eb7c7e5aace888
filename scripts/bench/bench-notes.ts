import { platformDelayMs, publishConcurrency } from './bench-stack.ts';
import { latenessFloorMs, ratioKeptTarget } from './measure-rows.ts';
import { bareScaleConcurrency } from './scale/scale-processes.ts';

/** What the table's readers need to know about how the figures were taken. */
export const benchNotes: readonly string[] = [
  'Lateness: when the Mastodon simulator received a post minus its due time. The ratio divides SPS\'s p99 by '
    + `max(bare p99, ${latenessFloorMs} ms), so a baseline of a few ms does not make the ratio meaningless. `
    + 'The bare side is BullMQ delayed jobs run by a worker making one HTTP POST. SPS\'s posts are all created '
    + 'before the first is due ("created late" fails the row): the 600 through POST /posts, the 10,000 with the '
    + 'api\'s createPosts in the bench process (same documents and jobs, no HTTP), the due time set from the time '
    + 'a sample of posts took to create.',
  'POST /posts: SPS (authentication, rate limit, platform rules, one insert shared with concurrent requests, delayed '
    + 'job, post.created told) against a bare Koa handler (insertOne of the post, insertOne of its post.created '
    + 'row in the events feed, delayed queue.add), both with the api\'s node flags; the same handler without the '
    + 'event row, as every post was written before the feed, is shown as a floor, unscored; '
    + `"seeded vs empty" must keep ${ratioKeptTarget.toFixed(2)}x of the empty-database ratio.`,
  'GET /integrations: SPS (authentication, the channel query, customers, presentation) against a bare Koa handler '
    + 'doing one find on channels {organizationId, deletedAt: null} and answering the documents; the organization '
    + 'has 5 channels. Same load generator as POST /posts, 2 rounds in turns.',
  `Publish jobs/s: posts all due at once, drained by SPS's publish worker and by the bare worker (concurrency `
    + `${publishConcurrency} each; SPS's workers give all ${publishConcurrency} calls slots to Mastodon, whose default `
    + `share is half the slots) posting to a simulator that answers after ${platformDelayMs} ms; jobs/s = `
    + 'statuses after the first / time from the first receipt to the last. SPS\'s are real posts (createPosts) with '
    + 'a webhook endpoint subscribed to post.published, so each job reads the post, calls the platform, writes the '
    + 'result, the notification and the outbox delivery.',
  'POST /posts now until received: one post at a time, each after the previous reached the simulator (answering at '
    + 'once), nothing else running; from sending the request to the simulator receiving the status.',
  'Publish job time: BullMQ finishedOn - processedOn of each job, one post due every 200 ms (5 jobs/s, so jobs do not '
    + 'queue); the bare job is one HTTP POST to the same simulator, no database. "vs 1,000 posts" times the seeded '
    + 'database and a second database of 1,000 posts (its own workers process) in the same minute, jobs interleaved, '
    + 'so the machine\'s load weighs on both alike.',
  'After seeding, the PostgreSQL database under FerretDB gets one VACUUM ANALYZE, as autovacuum would have done to a '
    + 'database that grew over months.',
  'Scale rows (issue 31): a database of their own with BENCH_SCALE_ORGANIZATIONS organizations of '
    + 'BENCH_SCALE_CHANNELS channels, each channel an account of its own on a stand-in answering each status after '
    + '500 ms (or 2 s); SPS\'s workers with their default slots, one process unless the row says otherwise. Drain: '
    + 'posts due in one second, one per channel in turn, from the first due time to the last status; the bare side is '
    + `a BullMQ worker at concurrency ${bareScaleConcurrency} making one HTTP POST per job to the same stand-in. `
    + 'Fairness: one organization\'s backlog due in one second, each other organization\'s single post due one after '
    + 'the other over the next 20 s; p99 of the single posts\' lateness. Processes: the same burst drained by 1, 2 '
    + 'and 4 workers processes of BENCH_PROCESS_CALLS slots each, so the platform\'s latency, not the CPU, bounds it.',
  'Burst lateness (posts due in the same second): scored against the durable bare worker, which reads each post, '
    + 'posts it, saves the result on it and inserts the notification with the raw driver, with SPS\'s job options and '
    + 'concurrency; the bare worker that writes nothing is shown as a floor, unscored.',
  'Event writes (issue 31 item 6): the notification and webhook delivery (with its queued attempt) a publish writes, '
    + 'through the workers\' own functions, for an organization with one endpoint, 100 publishes at a time, against '
    + 'the notification alone: the least any design writing one row per publish could write. Context, no target.',
  'Redis: the run starts its own redis-server with hz 100, so a due job is not held up to 100 ms by Redis\'s timer.',
];
