import { recordOffDescription } from './conformance-log.ts';
import type { OperationCheck, RequestVerdict } from './operation-check.ts';
import type { SimulatedAnswer, SimulatedRequest } from './simulator-server.ts';

/**
 * One request held to its platform's operations, for simulators that answer through their own
 * server as well as the kit's: `problems` says what the platform would refuse, and `answered`
 * records an answer the description does not allow (the test that caused it then fails).
 */
export class HeldExchange {
  readonly verdict: RequestVerdict;
  private readonly check: OperationCheck;
  private readonly route: string;

  constructor(check: OperationCheck, request: SimulatedRequest) {
    this.check = check;
    this.verdict = check.checkRequest(request);
    this.route = `${request.method} ${request.path}`;
  }

  get problems(): string[] {
    return this.verdict.problems;
  }

  answered(answer: SimulatedAnswer): void {
    const { operation } = this.verdict;
    const platform = this.check.file.platform;
    if (operation === null) {
      // A refusal of what the platform does not have is the platform's; serving it is not.
      const problems = ['the platform\'s operations have no such route'];
      if (answer.status < 400) recordOffDescription({ platform, route: this.route, status: answer.status, problems });
      return;
    }
    const problems = this.check.checkAnswer(operation, answer);
    if (problems.length === 0) return;
    recordOffDescription({ platform, route: operation.route, status: answer.status, problems });
  }
}
