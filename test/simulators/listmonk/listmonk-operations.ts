import { OperationCheck } from '../kit/operation-check.ts';
import type { HeldToOperations, SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * The simulator held to listmonk's operations (operations.json beside this file): the paths sit
 * under the description's server path, /api; `GET /api/profile`, which the description lacks, is
 * written from listmonk's handlers. A request off the description is refused as listmonk refuses a
 * request it cannot bind or validate: 400 `{message}` (design-blogging-business.md 8.5).
 */
function refuse(problems: string[]): SimulatedAnswer {
  return { status: 400, body: { message: problems.join('; ') } };
}

export function listmonkOperations(): HeldToOperations {
  return { check: OperationCheck.forPlatform('listmonk'), refuse };
}
