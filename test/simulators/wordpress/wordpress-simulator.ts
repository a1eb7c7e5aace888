import { createHash } from 'node:crypto';
import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { refuseAsWordpress, wordpressOperations } from './wordpress-operations.ts';

/**
 * A local stand-in for one self-hosted WordPress site's REST API, as far as connecting goes:
 * GET /wp/v2/users/me with HTTP Basic auth by application password, reachable at /wp-json/
 * (pretty permalinks) or at ?rest_route= (always), under an optional folder. It refuses the way
 * WordPress core does: its `{code, message, data: {status}}` bodies, 401 for unknown users and
 * wrong application passwords, rest_not_logged_in when no credentials arrive, rest_no_route for
 * other methods, and an HTML 404 page for unknown paths. Requests and answers are held to
 * WordPress 6.1.9's route arguments and johnbillion's answer schemas (operations.json beside this
 * file, wordpress-operations.ts): unknown parameters pass, as WordPress ignores them; a bad
 * registered one (a `context` other than view, embed, edit) is refused with rest_invalid_param.
 * Facts: /work/shared/platforms/design-blogging-business.md, section 6. Publishing is tested
 * against a real WordPress instead (test/support/wordpress-server.ts), with the fault proxy for
 * lost answers and throttling.
 */
export interface SimulatedWordpressUser {
  id: number;
  login: string;
  email: string;
  name: string;
  slug: string;
  roles: string[];
  /** Application passwords as WordPress shows them once (groups of four, spaces allowed). */
  applicationPasswords: string[];
}

export interface WordpressSimulatorOptions {
  users: SimulatedWordpressUser[];
  /** The folder WordPress lives in, such as "/blog"; empty for the site root. */
  folder?: string;
  /** Without pretty permalinks, /wp-json/ is an ordinary 404 page and only ?rest_route= works. */
  prettyPermalinks?: boolean;
}

export interface RunningWordpressSimulator extends RunningSimulator {
  /** The site's address, folder included, as a user would type it. */
  siteUrl: string;
}

/** Core roles and the capabilities that matter here (wp-admin/includes/schema.php, populate_roles). */
const roleCapabilities: Record<string, string[]> = {
  administrator: ['manage_options', 'list_users', 'edit_posts', 'publish_posts', 'upload_files', 'edit_others_posts'],
  editor: ['edit_posts', 'publish_posts', 'upload_files', 'edit_others_posts'],
  author: ['edit_posts', 'publish_posts', 'upload_files'],
  contributor: ['edit_posts', 'read'],
  subscriber: ['read'],
};

const currentUserRoute = '/wp/v2/users/me';

const notFoundPage: SimulatedAnswer = {
  status: 404,
  body: '<!DOCTYPE html><html><head><title>Page not found</title></head>'
    + '<body><h1>Oops! That page can’t be found.</h1></body></html>',
  headers: { 'content-type': 'text/html; charset=UTF-8' },
};

function restError(
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): SimulatedAnswer {
  return { status, body: { code, message, data: { status, ...extra } } };
}

/** WordPress keeps only letters and digits of an application password before comparing. */
function normalizedPassword(password: string): string {
  return password.replace(/[^a-z\d]/gi, '');
}

/** The REST route a request asks for, the way WordPress's rewrite rules and rest_route read it. */
function restRoute(request: SimulatedRequest, folder: string, prettyPermalinks: boolean): string | null {
  const route = request.query.get('rest_route');
  if (route !== null && (request.path === `${folder}/` || request.path === `${folder}/index.php`)) return route;
  const prefix = `${folder}/wp-json`;
  if (prettyPermalinks && (request.path === prefix || request.path.startsWith(`${prefix}/`))) {
    return request.path.slice(prefix.length) || '/';
  }
  return null;
}

type Authenticated = { user: SimulatedWordpressUser } | { refusal: SimulatedAnswer };

/** wp_authenticate_application_password: only Basic credentials count; other schemes are ignored. */
function authenticate(request: SimulatedRequest, users: SimulatedWordpressUser[]): Authenticated {
  const match = /^Basic (.+)$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] === undefined) {
    return { refusal: restError(401, 'rest_not_logged_in', 'You are not currently logged in.') };
  }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  const login = separator < 0 ? decoded : decoded.slice(0, separator);
  const password = separator < 0 ? '' : decoded.slice(separator + 1);
  const isEmail = login.includes('@');
  const user = users.find((candidate) => candidate.login === login || (isEmail && candidate.email === login));
  if (user === undefined) {
    return isEmail
      ? { refusal: restError(401, 'invalid_email', 'Unknown email address. Check again or try your username.') }
      : { refusal: restError(401, 'invalid_username', 'Unknown username. Check again or try your email address.') };
  }
  const typed = normalizedPassword(password);
  if (!user.applicationPasswords.some((known) => normalizedPassword(known) === typed)) {
    const message = 'The provided password is an invalid application password.';
    return { refusal: restError(401, 'incorrect_password', message) };
  }
  return { user };
}

function avatarUrls(user: SimulatedWordpressUser): Record<string, string> {
  const hash = createHash('md5').update(user.email.trim().toLowerCase()).digest('hex');
  const url = (size: number) => `https://secure.gravatar.com/avatar/${hash}?s=${String(size)}&d=mm&r=g`;
  return Object.fromEntries([24, 48, 96].map((size) => [String(size), url(size)]));
}

/** rest_url(): under /wp-json/ with pretty permalinks, otherwise index.php?rest_route=. */
function restUrl(siteUrl: string, prettyPermalinks: boolean, route: string): string {
  return prettyPermalinks ? `${siteUrl}/wp-json${route}` : `${siteUrl}/index.php?rest_route=${route}`;
}

function presentUser(
  user: SimulatedWordpressUser,
  siteUrl: string,
  context: string,
  prettyPermalinks: boolean,
): Record<string, unknown> {
  // As 6.1.9 answers: `meta` is [] in view, the user's registered meta (persisted_preferences) in edit.
  const links = {
    self: [{ href: restUrl(siteUrl, prettyPermalinks, `/wp/v2/users/${String(user.id)}`) }],
    collection: [{ href: restUrl(siteUrl, prettyPermalinks, '/wp/v2/users') }],
  };
  const view = {
    id: user.id,
    name: user.name,
    url: '',
    description: '',
    link: `${siteUrl}/author/${user.slug}/`,
    slug: user.slug,
    avatar_urls: avatarUrls(user),
  };
  if (context !== 'edit') return { ...view, meta: [], _links: links };
  const capabilities: Record<string, boolean> = {};
  for (const role of user.roles) {
    capabilities[role] = true;
    for (const capability of roleCapabilities[role] ?? []) capabilities[capability] = true;
  }
  return {
    ...view,
    username: user.login,
    email: user.email,
    roles: user.roles,
    capabilities,
    extra_capabilities: Object.fromEntries(user.roles.map((role) => [role, true])),
    meta: { persisted_preferences: [] },
    _links: links,
  };
}

export async function startWordpressSimulator(options: WordpressSimulatorOptions): Promise<RunningWordpressSimulator> {
  const folder = options.folder ?? '';
  const prettyPermalinks = options.prettyPermalinks ?? true;
  let siteUrl = '';
  const simulator = await startSimulatorServer((request) => {
    const route = restRoute(request, folder, prettyPermalinks);
    if (route === null) return notFoundPage;
    if (route !== currentUserRoute || request.method !== 'GET') {
      return restError(404, 'rest_no_route', 'No route was found matching the URL and request method.');
    }
    // The operations' check refused a context other than view, embed or edit before this point.
    const context = request.query.get('context') ?? 'view';
    const authenticated = authenticate(request, options.users);
    if ('refusal' in authenticated) return authenticated.refusal;
    return { status: 200, body: presentUser(authenticated.user, siteUrl, context, prettyPermalinks) };
  }, notFoundPage, {
    // Where this site would not route the request at all, WordPress answers its 404 page instead.
    operations: wordpressOperations((problems, request) => (restRoute(request, folder, prettyPermalinks) === null
      ? notFoundPage : refuseAsWordpress(problems))),
  });
  siteUrl = `${simulator.url}${folder}`;
  return { ...simulator, siteUrl };
}
