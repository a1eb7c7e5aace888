import {
  bearerToken, startSimulatorServer, type RunningSimulator, type SimulatedAnswer,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for Medium's legacy API v1 as far as connecting goes: GET /v1/me with an
 * integration token as a Bearer token. It refuses the way Medium does, in its
 * `{errors: [{message, code}]}` envelope: 401 code 6000 without a token, 401 code 6003 for an
 * unknown or revoked one. The 404 body for other routes keeps the envelope; its code is not
 * documented, so none is claimed.
 * Facts: /work/shared/platforms/design-blogging-business.md, section 3.
 */
export interface SimulatedMediumUser {
  id: string;
  username: string;
  name: string;
  imageUrl: string;
  tokens: string[];
}

export interface RunningMediumSimulator extends RunningSimulator {
  /** What SPS takes as the platform's API base (MEDIUM_API_URL). */
  apiUrl: string;
}

function mediumError(status: number, message: string, code?: number): SimulatedAnswer {
  return { status, body: { errors: [code === undefined ? { message } : { message, code }] } };
}

const notFound = mediumError(404, 'Not found.');

export async function startMediumSimulator(users: SimulatedMediumUser[]): Promise<RunningMediumSimulator> {
  const simulator = await startSimulatorServer((request) => {
    if (request.path !== '/v1/me' || request.method !== 'GET') return notFound;
    const token = bearerToken(request);
    if (token === null) return mediumError(401, 'An access token is required.', 6000);
    const user = users.find((candidate) => candidate.tokens.includes(token));
    if (user === undefined) return mediumError(401, 'Token was invalid.', 6003);
    const { id, username, name, imageUrl } = user;
    return { status: 200, body: { data: { id, username, name, url: `https://medium.com/@${username}`, imageUrl } } };
  }, notFound);
  return { ...simulator, apiUrl: `${simulator.url}/v1` };
}
