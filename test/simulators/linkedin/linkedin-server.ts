import {
  startSimulatorServer, type HeldToOperations, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/** LinkedIn's requests keep their bytes (image and video uploads): the kit's request under LinkedIn's name. */
export type RawRequest = SimulatedRequest;

/** An answer, or `lose`: LinkedIn did the work and the connection broke before its answer left. */
export type LinkedinAnswer = SimulatedAnswer;

export type LinkedinHandler = (request: RawRequest) => LinkedinAnswer | Promise<LinkedinAnswer> | undefined;

export type LinkedinServer = RunningSimulator;

/** More than any request SPS makes in tests (video parts are made small there). */
const maxBodyBytes = 16 * 1024 * 1024;

/** The LinkedIn simulator's HTTP side: the kit's server, with room for uploads and LinkedIn's 413. */
export function startLinkedinServer(
  handle: LinkedinHandler,
  notFound: SimulatedAnswer,
  operations: HeldToOperations,
): Promise<LinkedinServer> {
  const tooLarge = { status: 413, body: { status: 413, message: 'Request entity too large' } };
  return startSimulatorServer(handle, notFound, { maxBodyBytes, tooLarge, operations });
}
