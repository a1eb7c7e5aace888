import { randomBytes } from 'node:crypto';
import {
  bearerToken, jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for one Lemmy 0.19 instance's API v3, as far as signing in goes:
 * POST /api/v3/user/login and GET /api/v3/site. Bodies are read the way Lemmy's JSON extractor
 * reads them (a JSON content type, required fields, plain-text deserialize errors); refusals are
 * `{"error": "<snake_case>"}` with Lemmy's statuses (401 for incorrect_login, 400 for the rest).
 * Facts: ../shared/platforms/open-and-community.md, section 7.
 */
export interface SimulatedLemmyUser {
  id: number;
  name: string;
  email: string;
  password: string;
  displayName?: string;
  avatar?: string;
  /** The code the account's authenticator shows now, for accounts with two-factor authentication. */
  totp?: string;
  /** Accounts awaiting approval sign in with no token (registration_application_is_pending in newer versions). */
  pending?: boolean;
}

export interface LemmySimulator extends RunningSimulator {
  addUser(user: SimulatedLemmyUser): void;
  /** The session tokens the instance handed out and still honours. */
  sessions: Map<string, SimulatedLemmyUser>;
}

function lemmyError(status: number, error: string): SimulatedAnswer {
  return { status, body: { error } };
}

export async function startLemmySimulator(): Promise<LemmySimulator> {
  const users: SimulatedLemmyUser[] = [];
  const sessions = new Map<string, SimulatedLemmyUser>();
  let origin = '';

  function login(request: SimulatedRequest): SimulatedAnswer {
    if (!(request.headers['content-type'] ?? '').startsWith('application/json')) {
      return { status: 400, body: 'Content type error' };
    }
    const body = jsonBody(request);
    if (typeof body !== 'object' || body === null) {
      return { status: 400, body: 'Json deserialize error: expected value' };
    }
    const fields = body as Record<string, unknown>;
    for (const field of ['username_or_email', 'password']) {
      if (typeof fields[field] !== 'string') {
        return { status: 400, body: `Json deserialize error: missing field \`${field}\`` };
      }
    }
    const given = String(fields.username_or_email).toLowerCase();
    const matches = (candidate: SimulatedLemmyUser) => [candidate.name, candidate.email]
      .some((name) => name.toLowerCase() === given);
    const user = users.find(matches);
    if (user === undefined || user.password !== fields.password) return lemmyError(401, 'incorrect_login');
    if (user.totp !== undefined) {
      const code = fields.totp_2fa_token;
      if (code === undefined || code === null) return lemmyError(400, 'missing_totp_token');
      if (code !== user.totp) return lemmyError(400, 'incorrect_totp_token');
    }
    if (user.pending === true) {
      return { status: 200, body: { jwt: null, registration_created: true, verify_email_sent: false } };
    }
    const claims = Buffer.from(JSON.stringify({ sub: user.id, iss: 'lemmy' })).toString('base64url');
    const jwt = `eyJhbGciOiJIUzI1NiJ9.${claims}.${randomBytes(16).toString('base64url')}`;
    sessions.set(jwt, user);
    return { status: 200, body: { jwt, registration_created: false, verify_email_sent: false } };
  }

  function site(request: SimulatedRequest): SimulatedAnswer {
    const base = { site_view: { site: { name: 'Simulated Lemmy' } }, admins: [], version: '0.19.20' };
    const token = bearerToken(request);
    if (token === null) return { status: 200, body: base };
    const user = sessions.get(token);
    // The session middleware refuses a token it cannot validate, even on endpoints open to anyone.
    if (user === undefined) return lemmyError(400, 'not_logged_in');
    const person = {
      id: user.id,
      name: user.name,
      ...(user.displayName === undefined ? {} : { display_name: user.displayName }),
      ...(user.avatar === undefined ? {} : { avatar: user.avatar }),
      actor_id: `${origin}/u/${user.name}`,
      local: true,
      banned: false,
      deleted: false,
    };
    const myUser = { local_user_view: { person, local_user: { id: user.id } } };
    return { status: 200, body: { ...base, my_user: myUser } };
  }

  function answer(request: SimulatedRequest): SimulatedAnswer | undefined {
    const notAllowed = { status: 405, body: '' };
    if (request.path === '/api/v3/user/login') return request.method === 'POST' ? login(request) : notAllowed;
    if (request.path === '/api/v3/site') return request.method === 'GET' ? site(request) : notAllowed;
    return undefined;
  }

  const server = await startSimulatorServer(answer, lemmyError(404, 'not_found'));
  origin = server.url;
  return { ...server, sessions, addUser: (user) => { users.push(user); } };
}
