import { executeSync, Kind, OperationTypeNode, type GraphQLSchema } from 'graphql';
import { recordOffDescription } from '../kit/conformance-log.ts';
import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { apolloError, hashnodeOperations, type GraphqlRequest } from './hashnode-operations.ts';
import {
  HashnodeFailure, resolvers, type HashnodeWorld, type SimulatedHashnodeUser, type SimulatedPublication,
} from './hashnode-world.ts';

export type { SimulatedHashnodeUser, SimulatedPost, SimulatedPublication } from './hashnode-world.ts';

/**
 * A local stand-in for Hashnode's GraphQL endpoint (Apollo Server at /): POST a JSON
 * `{query, variables}` with the personal access token in the Authorization header (a "Bearer "
 * prefix is optional, any case). Every request is held to operations.json beside this file, the
 * part of Hashnode's schema SPS uses (hashnode-operations.ts): a request off it is refused before
 * anything runs, with HTTP 400 and Apollo's codes (BAD_REQUEST, GRAPHQL_PARSE_FAILED,
 * GRAPHQL_VALIDATION_FAILED, BAD_USER_INPUT). Answers come from graphql-js's `execute` over that
 * schema with the world's resolvers (hashnode-world.ts), so an answer off the schema fails the
 * test; what a resolver refuses comes with HTTP 200, its path and code (UNAUTHENTICATED for a
 * missing or unknown token on `me` and mutations, FORBIDDEN, NOT_FOUND, BAD_USER_INPUT). The
 * exact wording of Hashnode's messages is unconfirmed, and so is its throttling: published
 * limits are not enforced today, so `failNext(field, {throttle})` answers 429 with Retry-After
 * and a TOO_MANY_REQUESTS error, the shape a limit would most likely take. `failNext(field,
 * 'lose')` acts, then drops the connection. With `cacheSeconds`, public queries are answered from
 * an edge cache for that long, with an `Age` header, as Hashnode's CDN does for about 25 s.
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

function tokenOf(request: SimulatedRequest): string | null {
  const header = (request.headers.authorization ?? '').trim();
  const token = header.replace(/^bearer\s+/i, '');
  return token === '' ? null : token;
}

/** The first root field of the operation: what faults and `requestsFor` are keyed by. */
function rootFieldOf(parsed: GraphqlRequest): string {
  const [first] = parsed.operation.selectionSet.selections;
  return first?.kind === Kind.FIELD ? first.name.value : '';
}

/**
 * Runs the operation over the world with graphql-js, so every answer is held to the schema. An
 * error a resolver raised on purpose (HashnodeFailure) is Hashnode's answer; any other (a null
 * where the schema allows none, a value its type cannot represent) is the simulator answering off
 * the description: it goes out as Apollo's INTERNAL_SERVER_ERROR and fails the test.
 */
function execute(parsed: GraphqlRequest, schema: GraphQLSchema, rootValue: unknown): SimulatedAnswer {
  const { document, operation, variables } = parsed;
  const operationName = operation.name?.value ?? null;
  const result = executeSync({ schema, document, rootValue, variableValues: variables, operationName });
  const errors = (result.errors ?? []).map((error) => {
    const failure = error.originalError;
    if (failure instanceof HashnodeFailure) return apolloError(error, failure.extensions.code);
    const where = error.path === undefined ? '' : ` at ${error.path.join('.')}`;
    const problems = [`${error.message}${where}`];
    recordOffDescription({ platform: 'hashnode', route: 'POST /', status: 200, problems });
    return apolloError(error, 'INTERNAL_SERVER_ERROR');
  });
  const data = result.data ?? null;
  return { status: 200, body: errors.length === 0 ? { data } : { errors, data } };
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
  const rootFields = new WeakMap<SimulatedRequest, string>();
  const operations = hashnodeOperations();

  function run(request: SimulatedRequest, parsed: GraphqlRequest): SimulatedAnswer {
    const token = tokenOf(request);
    const viewer = token === null ? null : users.find((candidate) => candidate.tokens.includes(token)) ?? null;
    const root = roots(viewer, () => { throw new HashnodeFailure(unauthenticatedMessage, 'UNAUTHENTICATED'); });
    const rootValue = parsed.operation.operation === OperationTypeNode.MUTATION ? root.mutation : root.query;
    return execute(parsed, operations.check.schema, rootValue);
  }

  function cached(request: SimulatedRequest, parsed: GraphqlRequest): SimulatedAnswer {
    const { operation } = parsed;
    const isPublic = operation.operation === OperationTypeNode.QUERY && operation.selectionSet.selections
      .every((selection) => selection.kind !== Kind.FIELD || selection.name.value !== 'me');
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
    const parsed = operations.check.graphqlRequest(request);
    // Only what the route does not match reaches here unread: Apollo serves no GET without a query.
    if (parsed === undefined) return operations.refuse([], request);
    const rootField = rootFieldOf(parsed);
    rootFields.set(request, rootField);
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
  }, { status: 404, body: 'Not Found' }, { operations });

  return {
    ...server,
    world,
    stats,
    get cacheSeconds() { return state.cacheSeconds; },
    set cacheSeconds(value: number) { state.cacheSeconds = value; cache.clear(); },
    ageCache: (by) => { for (const entry of cache.values()) entry.at -= by * 1000; },
    failNext: (rootField, fault) => { faults.set(rootField, [...(faults.get(rootField) ?? []), fault]); },
    requestsFor: (rootField) => server.received.filter((request) => rootFields.get(request) === rootField),
  };
}
