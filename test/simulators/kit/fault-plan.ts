import type { SimulatedAnswer } from './simulator-server.ts';

/**
 * What a test makes a simulated route do on its next calls, in order:
 * - 'pass': the platform acts and answers as usual;
 * - 'lose': the platform acts, then the connection breaks before its answer leaves;
 * - an answer: the platform refuses (throttled, down...) without acting.
 */
export type FaultStep = 'pass' | 'lose' | SimulatedAnswer;

/** Faults queued per route ("POST /v5/pins"), consumed one a call; a route with none passes. */
export class FaultPlan {
  readonly #steps = new Map<string, FaultStep[]>();
  #lost = 0;

  /** Answers cut off on purpose so far. */
  get lostResponses(): number {
    return this.#lost;
  }

  failNext(route: string, ...steps: FaultStep[]): void {
    this.#steps.set(route, [...(this.#steps.get(route) ?? []), ...steps]);
  }

  /** Runs one call of `route`: `act` only when the step lets the platform act. */
  async run(route: string, act: () => SimulatedAnswer | Promise<SimulatedAnswer>): Promise<SimulatedAnswer> {
    const step = this.#steps.get(route)?.shift() ?? 'pass';
    if (step !== 'pass' && step !== 'lose') return step;
    const answer = await act();
    // Only an answer the platform acted on is lost; a refusal made nothing worth hiding.
    if (step === 'lose' && answer.status < 300) {
      this.#lost += 1;
      return { ...answer, lose: true };
    }
    return answer;
  }
}
