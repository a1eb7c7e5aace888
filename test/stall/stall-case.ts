import type { StallRequest } from './stall-request.ts';

/** What a good answer looks like: the API's JSON error with a code, a dashboard page, or anything below 500. */
export type AnswerShape = 'json' | 'page' | 'any';

/** One slow input sent to one place. */
export interface StallCase {
  /** Cases of a group (a route, a platform) are measured together; one by one when the group stalls. */
  group: string;
  /** Where the input goes and what it is, e.g. `body posts.0.value.0.content: dotted`. */
  name: string;
  answer: AnswerShape;
  /** 5xx statuses the route gives by design (501: not built yet). */
  designedServerErrors: readonly number[];
  /** Bytes of the slow input at full size: up to the body limit, the form limit or the header limit. */
  fullBytes: number;
  /** The request with the slow input at `bytes`. */
  build(bytes: number): Promise<StallRequest>;
}

/** Budget of Node's request head (`--max-http-header-size`, 16 KiB), less room for the request line and the rest. */
export const headBudget = 16 * 1024 - 1024;

/** Dashboard forms and the OAuth token endpoint read 64 KiB at most (dashboard/form-body.ts, oauth/token-route.ts). */
export const formBudget = 64 * 1024;

/**
 * The largest slow input sent per field. 64 KB finds every super-linear pass (the quadratic URL
 * counting took 31 s on 64 KB, the email pattern 7.7 s on 60 KB: a square grows 16 times for
 * 4 times the input, a linear pass 4 times) while the linear work of parsing and checking it stays
 * far below the limit on a loaded machine, and the suite stays a small part of `npm test`: at a
 * quarter megabyte it took 85 s of the suite's 12 minutes, its longest block 84 ms.
 */
export const fieldBudget = 64 * 1024;
