import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';

/** X's requests keep their bytes (media segments): the kit's request, under the name X's code uses. */
export type RawRequest = SimulatedRequest;

/** An answer, or `lose`: X did the work and the connection broke before its answer left. */
export type XAnswer = SimulatedAnswer;
