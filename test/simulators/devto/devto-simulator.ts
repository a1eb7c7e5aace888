import { OperationCheck } from '../kit/operation-check.ts';
import {
  jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import {
  articleProblems, newArticle, newestFirst, pageOf, presentCreated, presentMine, unprocessable,
  type SimulatedArticle, type SimulatedOrganization,
} from './devto-articles.ts';

/**
 * A local stand-in for Forem's API v1 (dev.to): the `api-key` header, the v1 Accept header,
 * GET /api/users/me, POST /api/articles, the key owner's lists (GET /api/articles/me/...), the
 * public tags and organizations. It refuses the way Forem does: 401 `{error: "unauthorized",
 * status: 401}` for a missing or unknown key and for suspended users, 404 `{error: "not found"}`,
 * 422 with the model's sentence; the per-user article limit answers 429 `{error: "Rate limit
 * reached, try again in N seconds"}` with Retry-After, and Rack::Attack's write throttle (a
 * one-shot fault here) 429 "Retry later" in plain text. `failNext(route, 'lose')` creates the
 * article, then drops the connection before the answer.
 * Facts: /work/shared/platforms/design-blogging-business.md, section 4.
 */
export interface SimulatedDevtoUser {
  id: number;
  username: string;
  name: string;
  profileImage: string;
  apiKeys: string[];
  suspended?: boolean;
  /** Organizations the user is a member of (organization_id is dropped for others). */
  organizations?: SimulatedOrganization[];
}

export type DevtoFault = 'lose' | 'rack-throttle';

export interface RunningDevtoSimulator extends RunningSimulator {
  /** What SPS takes as the platform's API base (DEVTO_API_URL). */
  apiUrl: string;
  articles: SimulatedArticle[];
  /** `published_article_creation`: this many articles per window, per user (Forem's default: 9 per 30 s). */
  articleLimit: { count: number; windowSeconds: number };
  /** Starts each user's window full, as if the limit had just been spent. */
  spendArticleLimit(userId: number): void;
  failNext(route: string, fault: DevtoFault): void;
  requestsTo(route: string): SimulatedRequest[];
  stats: { lostAnswers: number };
}

const unauthorized: SimulatedAnswer = { status: 401, body: { error: 'unauthorized', status: 401 } };
const notFound: SimulatedAnswer = { status: 404, body: { error: 'not found', status: 404 } };
const versionHeader = 'application/vnd.forem.api-v1+json';

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

const siteTags = ['javascript', 'webdev', 'beginners', 'programming', 'tutorial', 'react', 'python', 'ai']
  .map((name, index) => ({ id: index + 1, name, bg_color_hex: '#000000', text_color_hex: '#ffffff' }));

export async function startDevtoSimulator(users: SimulatedDevtoUser[]): Promise<RunningDevtoSimulator> {
  const articles: SimulatedArticle[] = [];
  const faults = new Map<string, DevtoFault[]>();
  const windows = new Map<number, { startedAt: number; used: number }>();
  const articleLimit = { count: 9, windowSeconds: 30 };
  const stats = { lostAnswers: 0 };

  const takeFault = (route: string): DevtoFault | undefined => faults.get(route)?.shift();

  /** Seconds to wait when the user's window is spent, else null (and the action counted). */
  function spendOne(userId: number): number | null {
    const now = Date.now();
    const current = windows.get(userId);
    const windowMs = articleLimit.windowSeconds * 1000;
    const expired = current === undefined || now - current.startedAt >= windowMs;
    const window = expired ? { startedAt: now, used: 0 } : current;
    windows.set(userId, window);
    if (window.used >= articleLimit.count) return Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000));
    window.used += 1;
    return null;
  }

  /**
   * PUT /api/articles/:id, as far as SPS uses it: `published` changed on the user's own article
   * (false takes it off the site as a draft). Another user's or an unknown article is 404.
   */
  function updateArticle(request: SimulatedRequest, user: SimulatedDevtoUser, id: number): SimulatedAnswer {
    const article = articles.find((candidate) => candidate.id === id && candidate.userId === user.id);
    if (article === undefined) return notFound;
    const body = jsonBody(request);
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).article : undefined;
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
      return unprocessable('article param must be a JSON object. You provided String');
    }
    const published = (fields as Record<string, unknown>).published;
    if (typeof published === 'boolean') article.published = published;
    return { status: 200, body: presentCreated(article) };
  }

  function createArticle(request: SimulatedRequest, user: SimulatedDevtoUser): SimulatedAnswer {
    const body = jsonBody(request);
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).article : undefined;
    if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) {
      const type = Array.isArray(fields) ? 'Array' : 'String';
      return unprocessable(`article param must be a JSON object. You provided ${type}`);
    }
    const article = fields as Record<string, unknown>;
    const problems = articleProblems(article, articles);
    if (problems.length > 0) return unprocessable(problems.join(', '));
    if (article.published === true) {
      const wait = spendOne(user.id);
      if (wait !== null) {
        const error = `Rate limit reached, try again in ${String(wait)} seconds`;
        return { status: 429, body: { error, status: 429 }, headers: { 'Retry-After': String(wait) } };
      }
    }
    const organization = user.organizations?.find((org) => org.id === article.organization_id) ?? null;
    const made = newArticle(articles.length + 1, user, article, organization, new Date());
    articles.push(made);
    return { status: 201, body: presentCreated(made), headers: { Location: presentCreated(made).url as string } };
  }

  function mine(request: SimulatedRequest, user: SimulatedDevtoUser, status: string): SimulatedAnswer {
    const own = articles.filter((article) => article.userId === user.id).filter((article) => {
      if (status === 'all') return true;
      return status === 'unpublished' ? !article.published : article.published;
    });
    return { status: 200, body: pageOf(newestFirst(own), request.query).map(presentMine) };
  }

  function route(request: SimulatedRequest): SimulatedAnswer | undefined {
    const accept = request.headers.accept ?? '';
    if (!accept.includes(versionHeader)) {
      const error = `the simulator speaks v1 only: send Accept: ${versionHeader} (Forem answers v0 without it)`;
      return { status: 400, body: { error, status: 400 } };
    }
    const { method, path } = request;
    if (method === 'GET' && path === '/api/tags') return { status: 200, body: pageOf(siteTags, request.query) };
    const organization = /^\/api\/organizations\/([^/]+)$/.exec(path);
    if (method === 'GET' && organization !== null) {
      const wanted = decodeURIComponent(organization[1] ?? '');
      const found = users.flatMap((user) => user.organizations ?? [])
        .find((org) => org.username === wanted || String(org.id) === wanted);
      return found === undefined ? notFound : {
        status: 200, body: { type_of: 'organization', id: found.id, username: found.username, name: found.name },
      };
    }
    const key = apiKeyOf(request);
    const user = key === null ? undefined : users.find((candidate) => candidate.apiKeys.includes(key));
    if (user === undefined || user.suspended === true) return unauthorized;
    if (method === 'GET' && path === '/api/users/me') return { status: 200, body: presentUser(user) };
    if (method === 'POST' && path === '/api/articles') return createArticle(request, user);
    const one = /^\/api\/articles\/(\d+)$/.exec(path);
    if (method === 'PUT' && one !== null) return updateArticle(request, user, Number(one[1]));
    const me = /^\/api\/articles\/me(?:\/(all|published|unpublished))?$/.exec(path);
    if (method === 'GET' && me !== null) return mine(request, user, me[1] ?? 'published');
    return undefined;
  }

  const server = await startSimulatorServer((request) => {
    const fault = takeFault(`${request.method} ${request.path}`);
    if (fault === 'rack-throttle') return { status: 429, body: 'Retry later\n', headers: { 'Retry-After': '1' } };
    const answer = route(request);
    if (fault === 'lose' && answer !== undefined) {
      stats.lostAnswers += 1;
      return { ...answer, lose: true };
    }
    return answer;
  }, notFound, {
    // Forem answers a request its API does not take with 422 and the reason as its error.
    operations: {
      check: OperationCheck.forPlatform('devto'),
      refuse: (problems) => unprocessable(problems.join(', ')),
    },
  });

  return {
    ...server,
    apiUrl: `${server.url}/api`,
    articles,
    articleLimit,
    spendArticleLimit: (userId) => { windows.set(userId, { startedAt: Date.now(), used: articleLimit.count }); },
    failNext: (route, fault) => { faults.set(route, [...(faults.get(route) ?? []), fault]); },
    requestsTo: (route) => server.received.filter((request) => `${request.method} ${request.path}` === route),
    stats,
  };
}
