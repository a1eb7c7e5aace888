import { OperationCheck } from '../kit/operation-check.ts';
import {
  bearerToken, jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for Medium's legacy API v1: an integration token as a Bearer token, GET
 * /v1/me, POST /v1/users/{authorId}/posts and /v1/publications/{id}/posts, the publications and
 * contributors lists. It refuses the way Medium does, in its `{errors: [{message, code}]}`
 * envelope: 401 code 6000 without a token, 401 code 6003 for an unknown or revoked one, 400 for
 * missing or invalid fields, 403 for another user's authorId, a publication the user does not
 * write for, or a writer asking for anything but a draft. It keeps Medium's quirks: only the first
 * 3 tags count, tags over 25 characters are dropped, a title over 100 characters is replaced.
 * Publishing is capped per user per day ("User … has reached the rate limit for publishing
 * today"); Medium never documented that refusal's status or a reset header, so the simulator
 * answers 429 and sends Retry-After only when told to. Medium has no way to list a user's
 * stories, and neither does the simulator. Codes are claimed only where Medium's are known.
 * Facts: /work/shared/platforms/design-blogging-business.md, section 3.
 */
export interface SimulatedMediumUser {
  id: string;
  username: string;
  name: string;
  imageUrl: string;
  tokens: string[];
}

export interface SimulatedMediumPublication {
  id: string;
  name: string;
  url: string;
  /** userId → role; others cannot post there. */
  roles: Record<string, 'editor' | 'writer'>;
}

export interface SimulatedStory {
  id: string;
  authorId: string;
  publicationId: string | null;
  title: string;
  content: string;
  contentFormat: string;
  tags: string[];
  canonicalUrl: string | null;
  publishStatus: string;
  license: string;
  url: string;
  publishedAt: number;
}

export interface RunningMediumSimulator extends RunningSimulator {
  /** What SPS takes as the platform's API base (MEDIUM_API_URL). */
  apiUrl: string;
  stories: SimulatedStory[];
  publications: SimulatedMediumPublication[];
  /** Stories a user may publish per 24 h, and the Retry-After sent once past it (none when null). */
  limits: { perDay: number; retryAfterSeconds: number | null };
  failNext(route: string, fault: 'lose'): void;
  requestsTo(route: string): SimulatedRequest[];
  stats: { lostAnswers: number };
}

const licenses = new Set([
  'all-rights-reserved', 'cc-40-by', 'cc-40-by-sa', 'cc-40-by-nd', 'cc-40-by-nc', 'cc-40-by-nc-nd', 'cc-40-by-nc-sa',
  'cc-40-zero', 'public-domain',
]);
const statuses = new Set(['public', 'draft', 'unlisted']);

function mediumError(status: number, message: string, code?: number): SimulatedAnswer {
  return { status, body: { errors: [code === undefined ? { message } : { message, code }] } };
}

const notFound = mediumError(404, 'Not found.');

/** What POST …/posts refuses with 400, or null. */
function invalid(fields: Record<string, unknown>): SimulatedAnswer | null {
  if (typeof fields.title !== 'string' || fields.title.trim() === '') return mediumError(400, 'Title is required.');
  if (fields.contentFormat !== 'html' && fields.contentFormat !== 'markdown') {
    return mediumError(400, 'contentFormat must be one of: html, markdown.');
  }
  if (typeof fields.content !== 'string' || fields.content.trim() === '') {
    return mediumError(400, 'Content is required.');
  }
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  if (fields.publishStatus !== undefined && !statuses.has(text(fields.publishStatus))) {
    return mediumError(400, 'publishStatus must be one of: public, draft, unlisted.');
  }
  if (fields.license !== undefined && !licenses.has(text(fields.license))) return mediumError(400, 'Invalid license.');
  if (fields.tags !== undefined && !Array.isArray(fields.tags)) return mediumError(400, 'tags must be an array.');
  return null;
}

/**
 * A story as Medium's Post object shows it: canonicalUrl only when one was given, publishedAt
 * never for a draft, publicationId only under a publication (Medium's README, 3.3).
 */
function storyAnswer(story: SimulatedStory): Record<string, unknown> {
  const { id, title, authorId, tags, url, canonicalUrl, publishStatus, license, publicationId, publishedAt } = story;
  return {
    id, title, authorId, tags, url, publishStatus, license,
    licenseUrl: 'https://policy.medium.com/medium-terms-of-service-9db0094a1e0f',
    ...(canonicalUrl === null ? {} : { canonicalUrl }),
    ...(publishStatus === 'draft' ? {} : { publishedAt }),
    ...(publicationId === null ? {} : { publicationId }),
  };
}

export async function startMediumSimulator(
  users: SimulatedMediumUser[],
  publications: SimulatedMediumPublication[] = [],
): Promise<RunningMediumSimulator> {
  const stories: SimulatedStory[] = [];
  const limits = { perDay: 10, retryAfterSeconds: null as number | null };
  const faults = new Map<string, 'lose'[]>();
  const stats = { lostAnswers: 0 };

  function publish(
    user: SimulatedMediumUser,
    publicationId: string | null,
    request: SimulatedRequest,
  ): SimulatedAnswer {
    const body = jsonBody(request);
    const fields = typeof body === 'object' && body !== null ? body as Record<string, unknown> : {};
    const refusal = invalid(fields);
    if (refusal !== null) return refusal;
    const status = typeof fields.publishStatus === 'string' ? fields.publishStatus : 'public';
    if (publicationId !== null) {
      const role = publications.find((pub) => pub.id === publicationId)?.roles[user.id];
      if (role === undefined) return mediumError(403, 'You do not have permission to publish in this publication.');
      if (role === 'writer' && status !== 'draft') {
        return mediumError(403, 'Writers can only submit drafts to this publication.');
      }
    }
    const today = stories.filter((story) => story.authorId === user.id && Date.now() - story.publishedAt < 86_400_000);
    if (today.length >= limits.perDay) {
      const answer = mediumError(429, `User ${user.id} has reached the rate limit for publishing today.`);
      return limits.retryAfterSeconds === null ? answer
        : { ...answer, headers: { 'Retry-After': String(limits.retryAfterSeconds) } };
    }
    const id = Math.random().toString(16).slice(2, 14);
    const rawTitle = String(fields.title).trim();
    const title = rawTitle.length > 100 ? String(fields.content).slice(0, 100) : rawTitle;
    // Medium uses the first 3 tags and ignores those over 25 characters.
    const given = Array.isArray(fields.tags) ? fields.tags.map(String) : [];
    const tags = given.slice(0, 3).filter((tag) => tag.length <= 25);
    const story: SimulatedStory = {
      id, authorId: user.id, publicationId, title,
      content: String(fields.content), contentFormat: String(fields.contentFormat),
      tags, canonicalUrl: typeof fields.canonicalUrl === 'string' ? fields.canonicalUrl : null, publishStatus: status,
      license: typeof fields.license === 'string' ? fields.license : 'all-rights-reserved',
      url: `https://medium.com/@${user.username}/${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${id}`,
      publishedAt: Date.now(),
    };
    stories.push(story);
    return { status: 201, body: { data: storyAnswer(story) } };
  }

  function route(request: SimulatedRequest): SimulatedAnswer {
    const token = bearerToken(request);
    if (token === null) return mediumError(401, 'An access token is required.', 6000);
    const user = users.find((candidate) => candidate.tokens.includes(token));
    if (user === undefined) return mediumError(401, 'Token was invalid.', 6003);
    const { method, path } = request;
    if (method === 'GET' && path === '/v1/me') {
      const { id, username, name, imageUrl } = user;
      return { status: 200, body: { data: { id, username, name, url: `https://medium.com/@${username}`, imageUrl } } };
    }
    const own = /^\/v1\/users\/([^/]+)\/(posts|publications)$/.exec(path);
    if (own !== null) {
      if (own[1] !== user.id) return mediumError(403, 'You do not have permission to act for this user.');
      if (method === 'POST' && own[2] === 'posts') return publish(user, null, request);
      if (method === 'GET' && own[2] === 'publications') {
        const mine = publications.filter((pub) => pub.roles[user.id] !== undefined)
          .map(({ id, name, url }) => ({ id, name, description: '', url, imageUrl: `${url}/logo.png` }));
        return { status: 200, body: { data: mine } };
      }
    }
    const pub = /^\/v1\/publications\/([^/]+)\/(posts|contributors)$/.exec(path);
    if (pub !== null) {
      const publication = publications.find((candidate) => candidate.id === pub[1]);
      if (publication === undefined) return notFound;
      if (method === 'POST' && pub[2] === 'posts') return publish(user, publication.id, request);
      if (method === 'GET' && pub[2] === 'contributors') {
        const data = Object.entries(publication.roles)
          .map(([userId, role]) => ({ publicationId: publication.id, userId, role }));
        return { status: 200, body: { data } };
      }
    }
    return notFound;
  }

  const server = await startSimulatorServer((request) => {
    const answer = route(request);
    if (faults.get(`${request.method} ${request.path}`)?.shift() === 'lose') {
      stats.lostAnswers += 1;
      return { ...answer, lose: true };
    }
    return answer;
  }, notFound, {
    // Medium answers fields it cannot take with 400 in its errors envelope (README, 3.3).
    operations: {
      check: OperationCheck.forPlatform('medium'),
      refuse: (problems) => mediumError(400, problems.join('; ')),
    },
  });

  return {
    ...server,
    apiUrl: `${server.url}/v1`,
    stories,
    publications,
    limits,
    stats,
    failNext: (route, fault) => { faults.set(route, [...(faults.get(route) ?? []), fault]); },
    requestsTo: (route) => server.received.filter((request) => `${request.method} ${request.path}` === route),
  };
}
