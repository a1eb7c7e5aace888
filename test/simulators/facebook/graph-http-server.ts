import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { graphOperations } from './graph-operations.ts';

/**
 * The Facebook simulator's HTTP front: the kit's server, which keeps each body's bytes (photo and
 * video uploads are checked by their bytes), with room for a test video, and can break the
 * connection after a route has acted, as a network failure after Graph accepted a post does.
 * Requests and answers are held to Facebook's operations (operations.json, graph-operations.ts).
 */
export type GraphRequest = SimulatedRequest;

/** An answer, or `lose`: the route did its work and the client never hears of it. */
export type GraphAnswer = SimulatedAnswer;

export type GraphHandler = (request: GraphRequest) => GraphAnswer | Promise<GraphAnswer> | undefined;

const maxBodyBytes = 64 * 1024 * 1024;

export function startGraphServer(handle: GraphHandler, notFound: SimulatedAnswer): Promise<RunningSimulator> {
  return startSimulatorServer(handle, notFound, { maxBodyBytes, operations: graphOperations('facebook') });
}
