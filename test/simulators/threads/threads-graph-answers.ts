import { graphError } from '../facebook/meta-graph-simulation.ts';
import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/** Graph's timestamps: `2026-11-25T10:00:00+0000`. */
export function graphTime(at: number): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, '+0000');
}

export const noSuchObject = (id: string, verb: 'get' | 'delete' = 'get'): SimulatedAnswer => graphError(
  `Unsupported ${verb} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, `
    + 'or does not support this operation',
  100,
  { subcode: 33, type: 'GraphMethodException' },
);

export const missingPermission = (): SimulatedAnswer =>
  graphError('(#10) Application does not have permission for this action', 10);

export const invalidParameter = (message: string): SimulatedAnswer => graphError(`(#100) ${message}`, 100);
