import { graphError } from '../facebook/meta-graph-simulation.ts';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';


export const missingPermission = (): SimulatedAnswer =>
  graphError('(#10) Application does not have permission for this action', 10);

export const invalidParameter = (message: string): SimulatedAnswer => graphError(`(#100) ${message}`, 100);
