import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for Forem's API (dev.to) as far as connecting goes: GET /api/users/me with the
 * `api-key` header. It refuses the way Forem does: 401 `{error: "unauthorized", status: 401}` for
 * a missing or unknown key and for suspended users, 404 `{error: "not found", status: 404}` for
 * other routes. A key in the query string is not a credential to Forem, so it is ignored here too.
 * Facts: /work/shared/platforms/design-blogging-business.md, section 4.
 */
export interface SimulatedDevtoUser {
  id: number;
  username: string;
  name: string;
  profileImage: string;
  apiKeys: string[];
  suspended?: boolean;
}

export interface RunningDevtoSimulator extends RunningSimulator {
  /** What SPS takes as the platform's API base (DEVTO_API_URL). */
  apiUrl: string;
}

const unauthorized: SimulatedAnswer = { status: 401, body: { error: 'unauthorized', status: 401 } };
const notFound: SimulatedAnswer = { status: 404, body: { error: 'not found', status: 404 } };

/** Rails reads headers case-insensitively; Node hands them over lower-cased. */
function apiKeyOf(request: SimulatedRequest): string | null {
  const value = request.headers['api-key'];
  return typeof value === 'string' && value !== '' ? value : null;
}

function presentUser(user: SimulatedDevtoUser): Record<string, unknown> {
  return {
    type_of: 'user',
    id: user.id,
    username: user.username,
    name: user.name,
    twitter_username: null,
    github_username: null,
    summary: '',
    location: '',
    website_url: null,
    joined_at: 'Jan 1, 2024',
    profile_image: user.profileImage,
  };
}

export async function startDevtoSimulator(users: SimulatedDevtoUser[]): Promise<RunningDevtoSimulator> {
  const simulator = await startSimulatorServer((request) => {
    if (request.path !== '/api/users/me' || request.method !== 'GET') return notFound;
    const key = apiKeyOf(request);
    const user = key === null ? undefined : users.find((candidate) => candidate.apiKeys.includes(key));
    if (user === undefined || user.suspended === true) return unauthorized;
    return { status: 200, body: presentUser(user) };
  }, notFound);
  return { ...simulator, apiUrl: `${simulator.url}/api` };
}
