import { watchEventLoop } from '../support/event-loop-watch.ts';
import type { StallCase } from './stall-case.ts';
import { sendStallRequest, type StallOutcome, type StallRequest } from './stall-request.ts';

/** The longest the api may keep its event loop to itself for one request. */
export const maxBlockedMs = 100;
/** No answer by then is a hang; answers take milliseconds, stalls seconds. */
const answerWithinMs = 20_000;
/** Inputs above this size are first sent at a small size: superlinear work would otherwise run for hours. */
const probeAbove = 16 * 1024;

export interface CaseResult {
  stallCase: StallCase;
  /** Size of the slow input sent. */
  bytes: number;
  /** Measured for this case alone when its group stalled; else the whole group's measure. */
  blockedMs: number;
  outcome: StallOutcome;
  /** Why the answer is not acceptable; null when it is. */
  badAnswer: string | null;
}

const probeBytes = (full: number): number => Math.max(1024, Math.floor(full / 64));

const codePattern = /^[a-z][a-z0-9_.]*$/;

function describeBody(body: string): string {
  return body.slice(0, 160).replace(/\s+/g, ' ');
}

/** The `error` code of a JSON error body; null when the body is no JSON or has none. */
function errorCode(body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    // An unreadable body is reported as a bad answer by the caller.
    if (error instanceof SyntaxError) return null;
    throw error;
  }
  const code = typeof parsed === 'object' && parsed !== null && 'error' in parsed ? parsed.error : null;
  return typeof code === 'string' ? code : null;
}

/** Whether the answer is a clear one: below 500, and a 4xx says what is wrong in the form its route uses. */
function badAnswer(stallCase: StallCase, outcome: StallOutcome): string | null {
  if (outcome.kind === 'hung') return `no answer within ${String(answerWithinMs)} ms`;
  if (outcome.kind === 'dropped') return `the connection was dropped (${outcome.detail})`;
  const { status, contentType, body } = outcome;
  if (status >= 500) {
    return stallCase.designedServerErrors.includes(status) ? null : `answered ${String(status)}: ${describeBody(body)}`;
  }
  if (status < 400 || stallCase.answer === 'any') return null;
  if (stallCase.answer === 'page') {
    const shown = contentType.startsWith('text/html') && body.includes('role="alert"');
    return shown ? null : `answered ${String(status)} without a page saying why: ${describeBody(body)}`;
  }
  const code = contentType.includes('json') ? errorCode(body) : null;
  return code !== null && codePattern.test(code)
    ? null
    : `answered ${String(status)} without a machine-readable code: ${describeBody(body)}`;
}

/**
 * Requests of a stage in flight at once: their database and password work overlaps, and a
 * stall still shows in the stage's measure (then each is measured alone).
 */
const inFlight = 4;

async function sendAll(port: number, requests: StallRequest[]): Promise<StallOutcome[]> {
  const outcomes: StallOutcome[] = new Array<StallOutcome>(requests.length);
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    for (let index = next; index < requests.length; index = next) {
      next += 1;
      const request = requests[index];
      if (request !== undefined) outcomes[index] = await sendStallRequest(port, request, answerWithinMs);
    }
  }));
  return outcomes;
}

/**
 * Sends `cases` at one size each under one watch of the loop; when the loop was blocked too
 * long, each is sent again alone to find which (a stall caused by the machine being busy
 * elsewhere does not happen twice, one caused by the input does).
 */
async function runStage(port: number, cases: { stallCase: StallCase; bytes: number }[]): Promise<CaseResult[]> {
  if (cases.length === 0) return [];
  // Built before the watch: making megabytes of text is the test's work, not the api's.
  const requests = await Promise.all(cases.map(({ stallCase, bytes }) => stallCase.build(bytes)));
  const together = await watchEventLoop(() => sendAll(port, requests));
  const results = cases.map(({ stallCase, bytes }, index): CaseResult => {
    const outcome = together.value[index] ?? { kind: 'dropped', detail: 'not sent' };
    return { stallCase, bytes, blockedMs: together.blockedMs, outcome, badAnswer: badAnswer(stallCase, outcome) };
  });
  if (together.blockedMs <= maxBlockedMs) return results;
  const alone: CaseResult[] = [];
  for (const [index, { stallCase, bytes }] of cases.entries()) {
    const request = requests[index];
    if (request === undefined) throw new Error(`no request built for ${stallCase.name}`);
    alone.push(await measuredAlone(port, stallCase, bytes, request));
  }
  return alone;
}

/**
 * One case sent alone until it stays within the limit, at most three times: the least block
 * is its own. A busy two-core machine (a collection, another process scheduled) now and then
 * holds a quiet request for 100-300 ms, but not three times in a row; a slow input does.
 */
async function measuredAlone(
  port: number,
  stallCase: StallCase,
  bytes: number,
  request: StallRequest,
): Promise<CaseResult> {
  const attempts: CaseResult[] = [];
  // A loaded machine (a collection, other test files) held a quiet request over a second once:
  // only a block seen three times counts.
  const again = (): boolean => attempts.every(({ blockedMs }) => blockedMs > maxBlockedMs);
  while (attempts.length < 3 && again()) {
    const watched = await watchEventLoop(() => sendStallRequest(port, request, answerWithinMs));
    const outcome = watched.value;
    const { blockedMs } = watched;
    attempts.push({ stallCase, bytes, blockedMs, outcome, badAnswer: badAnswer(stallCase, outcome) });
  }
  const [first] = attempts;
  if (first === undefined) throw new Error(`${stallCase.name} was not sent`);
  // A bad answer in any attempt counts; the block is the least seen.
  const shown = attempts.find((attempt) => attempt.badAnswer !== null) ?? first;
  return { ...shown, blockedMs: Math.min(...attempts.map((attempt) => attempt.blockedMs)) };
}

/**
 * Runs one group: small versions of its large inputs first, then every input at full size,
 * except those whose small version already stalled (reported at the small size).
 */
export async function runGroup(port: number, cases: readonly StallCase[]): Promise<CaseResult[]> {
  const large = cases.filter((stallCase) => stallCase.fullBytes > probeAbove);
  const probes = large.map((stallCase) => ({ stallCase, bytes: probeBytes(stallCase.fullBytes) }));
  const probed = await runStage(port, probes);
  const stalledEarly = probed.filter((result) => result.blockedMs > maxBlockedMs);
  const full = cases.filter((stallCase) => !stalledEarly.some((result) => result.stallCase === stallCase));
  const sent = await runStage(port, full.map((stallCase) => ({ stallCase, bytes: stallCase.fullBytes })));
  const probeProblems = probed.filter((result) => result.badAnswer !== null && !stalledEarly.includes(result));
  return [...stalledEarly, ...probeProblems, ...sent];
}

/** One line per case that stalled the loop or answered badly. */
export function failuresOf(results: readonly CaseResult[]): string[] {
  return results.flatMap((result) => {
    const where = `${result.stallCase.group} | ${result.stallCase.name} (${String(result.bytes)} bytes)`;
    const lines: string[] = [];
    if (result.blockedMs > maxBlockedMs) lines.push(`${where}: blocked the event loop ${String(result.blockedMs)} ms`);
    if (result.badAnswer !== null) lines.push(`${where}: ${result.badAnswer}`);
    return lines;
  });
}
