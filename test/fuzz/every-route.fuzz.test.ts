import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzTargets, publicRouteKeys, type FuzzTarget } from './fuzz-targets.ts';
import { FuzzWorld } from './fuzz-world.ts';
import { sendRaw, type RawOutcome } from './raw-http.ts';
import { mutateRequest, type MutatedRequest } from './request-mutations.ts';
import { mixSeed, SeededRandom } from './seeded-random.ts';

/**
 * Generated bad input against every route: valid example requests, each spoiled in one to three
 * ways (wrong types at any path of the body, huge strings, deep nesting, invalid UTF-8,
 * duplicated and hostile keys, percent-encoding junk in paths and queries, odd framing, content
 * and credential headers). No answer may be a 5xx (beyond a route's designed 501) and every
 * request must be answered within its timeout.
 *
 * The run's seed is printed; `FUZZ_SEED=<seed>` replays a run, `FUZZ_CASE="<target>#<n>"` one
 * case of it, and `FUZZ_CASES=<n>` changes the number of cases per target.
 */
const runSeed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32));
const casesPerTarget = Number(process.env.FUZZ_CASES ?? 36);
const onlyCase = process.env.FUZZ_CASE;
/**
 * Normal answers take milliseconds; a wide margin for a busy two-core machine, still far from a hang.
 * Bodies of tens of megabytes (POST /posts takes 32 MB) are read, parsed and refused in 2-3 s on a quiet
 * machine and up to four times that beside the other test files: a second more per megabyte sent.
 */
function requestTimeoutMs(bodyBytes: number): number {
  return 10_000 + Math.ceil(bodyBytes / 1_048_576) * 1_000;
}
const concurrency = 4;

interface FuzzCase { target: FuzzTarget; index: number; seed: number }

function describeOutcome(outcome: RawOutcome): string {
  if (outcome.kind === 'answered') return `${outcome.status} ${outcome.body.subarray(0, 200).toString('utf8')}`;
  if (outcome.kind === 'closed') return `connection closed without an answer (${outcome.detail})`;
  return `no answer within ${outcome.ms} ms`;
}

describe('fuzzing every route with generated bad input', () => {
  const world = new FuzzWorld();
  beforeAll(() => world.start(), 120_000);
  afterAll(() => world.stop(), 60_000);

  it('has a valid example request for every route of the public route table', () => {
    const targets = fuzzTargets(world.facts).map((target) => target.name);
    for (const key of publicRouteKeys()) {
      const [method = '', path = ''] = key.split(' ');
      expect(targets, `fuzz target for ${key}`).toContain(`${method} /api/public/v1${path}`);
    }
  });

  it('answers every generated request below 500, in time', async () => {
    const cases: FuzzCase[] = fuzzTargets(world.facts).flatMap((target) => Array.from(
      { length: casesPerTarget * (target.weight ?? 1) },
      (_, index) => ({
        target, index, seed: mixSeed(runSeed, target.name, index),
      }),
    )).filter((fuzzCase) => onlyCase === undefined || `${fuzzCase.target.name}#${fuzzCase.index}` === onlyCase);
    const failures: string[] = [];
    const statuses = new Map<string, number>();
    let sent = 0;
    let serverErrors = 0;
    const timings: { ms: number; text: string }[] = [];

    const run = async (fuzzCase: FuzzCase): Promise<void> => {
      const random = new SeededRandom(fuzzCase.seed);
      const mutated: MutatedRequest = mutateRequest(random, fuzzCase.target.template(random), world.facts, {
        largestString: fuzzCase.target.largestString ?? 1_100_000,
      });
      const port = fuzzCase.target.server === 'api' ? world.facts.apiPort : world.facts.authPort;
      const outcome = await sendRaw(port, mutated.request, requestTimeoutMs(mutated.request.body.length));
      sent += 1;
      if (process.env.FUZZ_DEBUG !== undefined) {
        timings.push({
          ms: outcome.ms,
          text: `${fuzzCase.target.name}#${fuzzCase.index} [${mutated.what.join('; ')}] `
            + `${outcome.kind === 'answered' ? outcome.status : outcome.kind}`,
        });
      }
      // A server may refuse an oversized body by closing early; the client then cannot always read
      // the 413 (the reset discards it). Counted apart: neither a server error nor a hang.
      const refusedMidBody = outcome.kind === 'closed' && outcome.whileSending
        && mutated.request.body.length > 16 * 1024;
      const label = outcome.kind === 'answered'
        ? String(outcome.status)
        : refusedMidBody ? 'reset while sending' : outcome.kind;
      statuses.set(label, (statuses.get(label) ?? 0) + 1);
      const designed = fuzzCase.target.designedServerErrors ?? [];
      const serverError = outcome.kind === 'answered' && outcome.status >= 500 && !designed.includes(outcome.status);
      if (serverError) serverErrors += 1;
      if (serverError || (outcome.kind !== 'answered' && !refusedMidBody)) {
        failures.push(`${fuzzCase.target.name}#${fuzzCase.index} [${mutated.what.join('; ')}] `
          + `${mutated.request.method} `
          + `${mutated.request.target.subarray(0, 120).toString('latin1')} -> ${describeOutcome(outcome)}`);
      }
    };

    const queue = [...cases];
    await Promise.all(Array.from({ length: concurrency }, async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) await run(next);
    }));

    const summary = `fuzz seed ${runSeed}: ${sent} requests, ${serverErrors} answered 5xx, `
      + `statuses ${JSON.stringify(Object.fromEntries(statuses))}`;
    process.stderr.write(`${summary}\n`);
    if (process.env.FUZZ_DEBUG !== undefined) {
      process.stderr.write(`${timings
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 40)
        .map((item) => `${item.ms} ms ${item.text}`)
        .join('\n')}\n`);
    }
    // One line per failure in the message: an array's diff would elide them.
    expect(
      failures.join('\n'),
      `${summary}\nreplay: FUZZ_SEED=${runSeed} npx vitest run test/fuzz/every-route.fuzz.test.ts `
        + '(add FUZZ_CASE="<name>#<n>" for one case)',
    ).toBe('');
    expect(sent).toBe(cases.length);
  }, 180_000);
});
