import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for a listmonk instance (v4 and later) as far as connecting goes: GET
 * /api/profile and GET /api/settings for an API user. Authentication follows listmonk's
 * internal/auth: `Authorization: token user:token` or Basic; an unknown scheme or a malformed
 * pair is 403 with echo's "code=400, message=…" text; a wrong pair is 403 "invalid API
 * credentials" (never 401); no header is 403 "invalid session". /api/settings needs the
 * settings:get permission (Super Admin has all): 403 "permission denied: settings:get" without
 * it. Errors are `{message}`, answers `{data}`. `legacy` plays a listmonk before v4, which has
 * no /api/profile.
 * Facts: /work/shared/platforms/design-blogging-business.md, section 8.
 */
export interface SimulatedListmonkApiUser {
  id: number;
  username: string;
  name: string;
  token: string;
  /** Super Admin skips permission checks, as listmonk's SuperAdminRoleID does. */
  role: { id: number; name: string; permissions: string[] };
}

export interface ListmonkSimulatorOptions {
  users: SimulatedListmonkApiUser[];
  siteName: string;
  logoUrl?: string;
  /** Before v4: no API users, so no /api/profile. */
  legacy?: boolean;
}

export interface RunningListmonkSimulator extends RunningSimulator {
  /** The instance's root as a user types it. */
  rootUrl: string;
}

const superAdminRoleId = 1;

const notFound: SimulatedAnswer = { status: 404, body: { message: 'Not Found' } };

const forbidden = (message: string): SimulatedAnswer => ({ status: 403, body: { message } });

type Authenticated = { user: SimulatedListmonkApiUser } | { refusal: SimulatedAnswer };

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

function authenticate(request: SimulatedRequest, users: SimulatedListmonkApiUser[]): Authenticated {
  const header = (request.headers.authorization ?? '').trim();
  if (header === '') return { refusal: forbidden('invalid session') };
  const pair = credentialPair(header);
  if (!Array.isArray(pair)) return { refusal: pair };
  const [username, token] = pair;
  const user = users.find((candidate) => candidate.username === username && candidate.token === token);
  return user === undefined ? { refusal: forbidden('invalid API credentials') } : { user };
}

function hasPermission(user: SimulatedListmonkApiUser, permission: string): boolean {
  return user.role.id === superAdminRoleId || user.role.permissions.includes(permission);
}

function presentProfile(user: SimulatedListmonkApiUser): Record<string, unknown> {
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

export async function startListmonkSimulator(options: ListmonkSimulatorOptions): Promise<RunningListmonkSimulator> {
  let rootUrl = '';
  const simulator = await startSimulatorServer((request) => {
    const route = `${request.method} ${request.path}`;
    if (route !== 'GET /api/profile' && route !== 'GET /api/settings') return notFound;
    if (options.legacy === true && route === 'GET /api/profile') return notFound;
    const authenticated = authenticate(request, options.users);
    if ('refusal' in authenticated) return authenticated.refusal;
    const { user } = authenticated;
    if (route === 'GET /api/profile') return { status: 200, body: { data: presentProfile(user) } };
    if (!hasPermission(user, 'settings:get')) return forbidden('permission denied: settings:get');
    return {
      status: 200,
      body: {
        data: {
          'app.site_name': options.siteName,
          'app.root_url': rootUrl,
          'app.logo_url': options.logoUrl ?? '',
          'app.favicon_url': '',
          'app.from_email': 'listmonk <noreply@listmonk.yoursite.com>',
        },
      },
    };
  }, notFound);
  rootUrl = simulator.url;
  return { ...simulator, rootUrl };
}
