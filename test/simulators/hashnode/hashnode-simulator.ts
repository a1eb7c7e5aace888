import {
  jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import {
  coerceVariables, execute, GraphqlFailure, parseOperation, validate, type Operation,
} from './graphql-lite.ts';
import { hashnodeArguments, hashnodeInputTypes, hashnodeTypes, scalars } from './hashnode-schema.ts';
import {
  resolvers, type HashnodeWorld, type SimulatedHashnodeUser, type SimulatedPublication,
} from './hashnode-world.ts';

export type { SimulatedHashnodeUser, SimulatedPost, SimulatedPublication } from './hashnode-world.ts';

/**
 * A local stand-in for Hashnode's GraphQL endpoint (Apollo Server at /): POST a JSON
 * `{query, variables}` with the personal access token in the Authorization header (a "Bearer "
 * prefix is optional, any case). Like Apollo it refuses a request that is not a JSON POST with a
 * query (400 BAD_REQUEST), a query it cannot parse (400 GRAPHQL_PARSE_FAILED), that asks for a
 * field the type does not have or passes arguments the field does not declare (400
 * GRAPHQL_VALIDATION_FAILED), or whose variables do not fit their input types (400
 * BAD_USER_INPUT, e.g. a PublishPostInput field the gql-beta schema lacks); what a resolver refuses comes
 * with HTTP 200, no data and the error's code (UNAUTHENTICATED for a missing or unknown token on
 * `me` and mutations, FORBIDDEN, NOT_FOUND, BAD_USER_INPUT). The exact wording of Hashnode's
 * messages is unconfirmed, and so is its throttling: published limits are not enforced today,
 * so `failNext(field, {throttle})` answers 429 with Retry-After and a TOO_MANY_REQUESTS error,
 * the shape a limit would most likely take. `failNext(field, 'lose')` acts, then drops the
 * connection. With `cacheSeconds`, public queries are answered from an edge cache for that long,
 * with an `Age` header, as Hashnode's CDN does for about 25 s.
 * Facts: /work/shared/platforms/design-blogging-business.md, section 5.
 */

export type HashnodeFault = 'lose' | { throttle: number };

export interface HashnodeOptions {
  publications?: SimulatedPublication[];
  cacheSeconds?: number;
}

export interface RunningHashnodeSimulator extends RunningSimulator {
  world: HashnodeWorld;
  /** The next request whose operation starts with this root field meets the fault. */
  failNext(rootField: string, fault: HashnodeFault): void;
  /** Requests whose operation's first root field is `rootField`. */
  requestsFor(rootField: string): SimulatedRequest[];
  stats: { lostAnswers: number };
  cacheSeconds: number;
  /** Makes every cached answer this much older, as if time had passed at the edge. */
  ageCache(seconds: number): void;
}

export const unauthenticatedMessage = 'Invalid or missing access token';

function badRequest(message: string, code: string): SimulatedAnswer {
  return { status: 400, body: { errors: [{ message, extensions: { code } }] } };
}

function tokenOf(request: SimulatedRequest): string | null {
  const header = (request.headers.authorization ?? '').trim();
  const token = header.replace(/^bearer\s+/i, '');
  return token === '' ? null : token;
}

class Unauthenticated extends GraphqlFailure {
  constructor() {
    super(unauthenticatedMessage, 'UNAUTHENTICATED');
  }
}

interface ParsedRequest {
  operation: Operation;
  variables: Record<string, unknown>;
}

function readRequest(request: SimulatedRequest): ParsedRequest | SimulatedAnswer {
  const body = jsonBody(request);
  const isJson = (request.headers['content-type'] ?? '').startsWith('application/json');
  if (request.method !== 'POST' || !isJson || typeof body !== 'object' || body === null) {
    return badRequest('POST body missing, invalid Content-Type, or JSON object has no keys.', 'BAD_REQUEST');
  }
  const { query, variables } = body as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') {
    const message = 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.';
    return badRequest(message, 'BAD_REQUEST');
  }
  try {
    const operation = parseOperation(query);
    validate(operation, hashnodeTypes, scalars, hashnodeArguments);
    const given = typeof variables === 'object' && variables !== null ? variables as Record<string, unknown> : {};
    coerceVariables(operation, given, hashnodeInputTypes);
    return { operation, variables: given };
  } catch (error) {
    if (error instanceof GraphqlFailure) return badRequest(error.message, error.code);
    throw error;
  }
}

export async function startHashnodeSimulator(
  users: SimulatedHashnodeUser[],
  options: HashnodeOptions = {},
): Promise<RunningHashnodeSimulator> {
  const world: HashnodeWorld = { users, publications: options.publications ?? [], posts: [] };
  const roots = resolvers(world);
  const faults = new Map<string, HashnodeFault[]>();
  const stats = { lostAnswers: 0 };
  const cache = new Map<string, { at: number; answer: SimulatedAnswer }>();
  const state = { cacheSeconds: options.cacheSeconds ?? 0 };
  const rootFieldOf = new WeakMap<SimulatedRequest, string>();

  function run(request: SimulatedRequest, parsed: ParsedRequest): SimulatedAnswer {
    const token = tokenOf(request);
    const viewer = token === null ? null : users.find((candidate) => candidate.tokens.includes(token)) ?? null;
    const root = roots(viewer, () => { throw new Unauthenticated(); });
    const { operation, variables } = parsed;
    try {
      const value = operation.type === 'query' ? root.query : root.mutation;
      return { status: 200, body: { data: execute(operation.selections, value, variables) } };
    } catch (error) {
      if (!(error instanceof GraphqlFailure)) throw error;
      const path = [operation.selections[0]?.name ?? ''];
      const failure = { message: error.message, path, extensions: { code: error.code } };
      return { status: 200, body: { errors: [failure], data: null } };
    }
  }

  function cached(request: SimulatedRequest, parsed: ParsedRequest): SimulatedAnswer {
    const { operation } = parsed;
    const isPublic = operation.type === 'query' && operation.selections.every((field) => field.name !== 'me');
    if (state.cacheSeconds <= 0 || !isPublic) return run(request, parsed);
    const key = request.text;
    const now = Date.now();
    const hit = cache.get(key);
    const cacheControl = `public, max-age=${String(state.cacheSeconds)}`;
    if (hit !== undefined && now - hit.at < state.cacheSeconds * 1000) {
      const age = String(Math.floor((now - hit.at) / 1000));
      return { ...hit.answer, headers: { ...hit.answer.headers, Age: age, 'Cache-Control': cacheControl } };
    }
    const answer = run(request, parsed);
    cache.set(key, { at: now, answer });
    return { ...answer, headers: { Age: '0', 'Cache-Control': cacheControl } };
  }

  const server = await startSimulatorServer((request) => {
    if (request.path !== '/') return undefined;
    const parsed = readRequest(request);
    if (!('operation' in parsed)) return parsed;
    const rootField = parsed.operation.selections[0]?.name ?? '';
    rootFieldOf.set(request, rootField);
    const fault = faults.get(rootField)?.shift();
    if (fault !== undefined && fault !== 'lose') {
      const message = 'Too many requests, please try again later.';
      const error = { message, extensions: { code: 'TOO_MANY_REQUESTS' } };
      return { status: 429, body: { errors: [error] }, headers: { 'Retry-After': String(fault.throttle) } };
    }
    const answer = cached(request, parsed);
    if (fault === 'lose') {
      stats.lostAnswers += 1;
      return { ...answer, lose: true };
    }
    return answer;
  }, { status: 404, body: 'Not Found' });

  return {
    ...server,
    world,
    stats,
    get cacheSeconds() { return state.cacheSeconds; },
    set cacheSeconds(value: number) { state.cacheSeconds = value; cache.clear(); },
    ageCache: (by) => { for (const entry of cache.values()) entry.at -= by * 1000; },
    failNext: (rootField, fault) => { faults.set(rootField, [...(faults.get(rootField) ?? []), fault]); },
    requestsFor: (rootField) => server.received.filter((request) => rootFieldOf.get(request) === rootField),
  };
}
