import type { SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';

/**
 * listmonk's authentication (internal/auth), design-blogging-business.md 8.1 and 8.5. v4 and
 * later: `Authorization: token user:token` or Basic with the same pair; an unknown scheme or a
 * malformed pair is 403 with echo's "code=400, message=…" text; a wrong pair is 403 "invalid API
 * credentials" (never 401); no header is 403 "invalid session". Before v4 (`legacy`): echo's
 * BasicAuth middleware with the admin's user name and password, 401 "Unauthorized" otherwise.
 */
export interface SimulatedListmonkApiUser {
  id: number;
  username: string;
  name: string;
  token: string;
  /** Super Admin skips permission checks, as listmonk's SuperAdminRoleID does. */
  role: { id: number; name: string; permissions: string[] };
}

const superAdminRoleId = 1;

export const forbidden = (message: string): SimulatedAnswer => ({ status: 403, body: { message } });

export type Authenticated = { user: SimulatedListmonkApiUser } | { refusal: SimulatedAnswer };

/** parseAuthHeader: its 400s reach the client as 403 carrying the inner error's text. */
function credentialPair(header: string): [string, string] | SimulatedAnswer {
  let pair: string[];
  if (header.startsWith('token')) {
    pair = header.slice('token'.length).trim().split(':');
  } else if (header.startsWith('Basic')) {
    pair = Buffer.from(header.slice('Basic'.length).trim(), 'base64').toString('utf8').split(':');
  } else {
    return forbidden('code=400, message=unknown Authorization scheme');
  }
  const [key, ...rest] = pair;
  if (key === undefined || rest.length === 0) return forbidden('code=400, message=api_key:token missing');
  const token = rest.join(':');
  if (key === '' || token === '') return forbidden('code=400, message=empty `api_key` or `token`');
  return [key, token];
}

const unauthorized: SimulatedAnswer = {
  status: 401, body: { message: 'Unauthorized' }, headers: { 'www-authenticate': 'basic realm=Restricted' },
};

function legacyAuthenticate(request: SimulatedRequest, users: SimulatedListmonkApiUser[]): Authenticated {
  const match = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
  const [username, ...rest] = Buffer.from(match?.[1] ?? '', 'base64').toString('utf8').split(':');
  const user = users.find((candidate) => candidate.username === username && candidate.token === rest.join(':'));
  return user === undefined || match === null ? { refusal: unauthorized } : { user };
}

export function authenticate(
  request: SimulatedRequest,
  users: SimulatedListmonkApiUser[],
  legacy: boolean,
): Authenticated {
  if (legacy) return legacyAuthenticate(request, users);
  const header = (request.headers.authorization ?? '').trim();
  if (header === '') return { refusal: forbidden('invalid session') };
  const pair = credentialPair(header);
  if (!Array.isArray(pair)) return { refusal: pair };
  const [username, token] = pair;
  const user = users.find((candidate) => candidate.username === username && candidate.token === token);
  return user === undefined ? { refusal: forbidden('invalid API credentials') } : { user };
}

/** Before v4 the one login may do everything. */
export function hasPermission(user: SimulatedListmonkApiUser, permission: string, legacy: boolean): boolean {
  return legacy || user.role.id === superAdminRoleId || user.role.permissions.includes(permission);
}

export function presentProfile(user: SimulatedListmonkApiUser): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    email: `${user.username}@api`,
    name: user.name,
    type: 'api',
    status: 'enabled',
    avatar: null,
    loggedin_at: null,
    user_role: { id: user.role.id, name: user.role.name, permissions: user.role.permissions },
    list_role: null,
  };
}
