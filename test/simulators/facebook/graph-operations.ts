import { OperationCheck } from '../kit/operation-check.ts';
import type { HeldToOperations, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { graphError } from './meta-graph-simulation.ts';

/**
 * A Meta simulator held to its platform's Graph operations (operations.json in its folder, from
 * Meta's codegen specs). Graph refuses a parameter it cannot take with code 100 ("(#100) Param
 * ... must be ...") in its envelope; the login dialogs answer an error page instead, and hosts
 * with refusals of their own (api.instagram.com's token endpoint) say so through `elsewhere`.
 * Facts: ../shared/platforms/oauth-majors.md 3.5.
 */
export type OwnRefusal = (reasons: string, request: SimulatedRequest) => SimulatedAnswer | undefined;

const dialogs = /\/(?:dialog\/oauth|oauth\/authorize)$/;

export function graphOperations(folder: string, elsewhere?: OwnRefusal): HeldToOperations {
  return {
    check: OperationCheck.forPlatform(folder),
    refuse(problems, request) {
      const reasons = problems.join('; ');
      const own = elsewhere?.(reasons, request);
      if (own !== undefined) return own;
      if (dialogs.test(request.path)) return { status: 400, body: `Invalid request: ${reasons}` };
      return graphError(`(#100) ${reasons}`, 100);
    },
  };
}
