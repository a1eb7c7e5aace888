import { OperationCheck } from '../kit/operation-check.ts';
import type { HeldToOperations, SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * The Neynar simulator held to Neynar's operations (operations.json beside this file). A request
 * the description does not allow is refused as Neynar refuses a bad field: 400 ErrorRes with
 * `code: "InvalidField"` and the first field named as its `property`.
 */
function refuse(problems: string[]): SimulatedAnswer {
  const property = /^(?:body|query|path)\.([^\s.]+)/.exec(problems[0] ?? '')?.[1];
  const message = problems.join('; ');
  const named = property === undefined ? {} : { property };
  return { status: 400, body: { message, code: 'InvalidField', ...named, status: 400 } };
}

export function neynarOperations(): HeldToOperations {
  return { check: OperationCheck.forPlatform('warpcast'), refuse };
}
