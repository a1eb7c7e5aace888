/** What waiting a bounded time for a worker's job came to: its result, or not finished yet (it goes on). */
export type AwaitedJob = { finished: true; result: unknown } | { finished: false };
