import {
  jsonBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';

/**
 * A local stand-in for Hashnode's GraphQL endpoint (Apollo Server at /) as far as connecting
 * goes: POST a JSON `{query}` asking `me { ... }` with the personal access token in the
 * Authorization header (a "Bearer " prefix is optional, any case). Like Apollo it refuses a
 * request that is not a JSON POST with a query (400), a field the type does not have (400
 * GRAPHQL_VALIDATION_FAILED), and answers a missing or unknown token with HTTP 200, a GraphQL
 * error coded UNAUTHENTICATED and no data. It understands one flat selection on `me`, which is
 * all connecting asks; the exact wording of Hashnode's UNAUTHENTICATED message is unconfirmed.
 * Facts: /work/shared/platforms/design-blogging-business.md, section 5.
 */
export interface SimulatedHashnodeUser {
  id: string;
  username: string;
  name: string;
  profilePicture: string | null;
  email: string;
  tokens: string[];
}

/** Scalar fields of MyUser (Hashnode's schema.graphql) the simulator can answer. */
const myUserFields = new Set([
  'id', 'username', 'name', 'profilePicture', 'tagline', 'email', 'location', 'dateJoined',
  'followersCount', 'followingsCount', 'deactivated',
]);

export const unauthenticatedMessage = 'Invalid or missing access token';

function badRequest(message: string, code: string): SimulatedAnswer {
  return { status: 400, body: { errors: [{ message, extensions: { code } }] } };
}

function validationFailed(message: string): SimulatedAnswer {
  return badRequest(message, 'GRAPHQL_VALIDATION_FAILED');
}

/** The fields asked of `me`, or the answer refusing the query. */
function meSelection(query: string): string[] | SimulatedAnswer {
  const text = query.replace(/#[^\n]*/g, '').trim();
  const operation = /^(?:query(?:\s+[_A-Za-z]\w*)?\s*)?\{\s*([_A-Za-z]\w*)\s*(\{([^{}]*)\})?\s*\}$/.exec(text);
  if (operation === null) {
    return badRequest('Syntax Error: the simulator reads one flat query on `me`', 'GRAPHQL_PARSE_FAILED');
  }
  const [, root = '', selection, fields = ''] = operation;
  if (root !== 'me') return validationFailed(`Cannot query field "${root}" on type "Query".`);
  if (selection === undefined) {
    return validationFailed('Field "me" of type "MyUser!" must have a selection of subfields. '
      + 'Did you mean "me { ... }"?');
  }
  const names = fields.split(/[\s,]+/).filter((name) => name !== '');
  const unknown = names.find((name) => !myUserFields.has(name));
  if (unknown !== undefined) return validationFailed(`Cannot query field "${unknown}" on type "MyUser".`);
  return names;
}

function tokenOf(request: SimulatedRequest): string | null {
  const header = (request.headers.authorization ?? '').trim();
  const token = header.replace(/^bearer\s+/i, '');
  return token === '' ? null : token;
}

function handle(request: SimulatedRequest, users: SimulatedHashnodeUser[]): SimulatedAnswer | undefined {
  if (request.path !== '/') return undefined;
  const body = jsonBody(request);
  const isJson = (request.headers['content-type'] ?? '').startsWith('application/json');
  if (request.method !== 'POST' || !isJson || typeof body !== 'object' || body === null) {
    return badRequest('POST body missing, invalid Content-Type, or JSON object has no keys.', 'BAD_REQUEST');
  }
  const query: unknown = (body as Record<string, unknown>).query;
  if (typeof query !== 'string' || query.trim() === '') {
    const message = 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.';
    return badRequest(message, 'BAD_REQUEST');
  }
  const fields = meSelection(query);
  if (!Array.isArray(fields)) return fields;
  const token = tokenOf(request);
  const user = token === null ? undefined : users.find((candidate) => candidate.tokens.includes(token));
  if (user === undefined) {
    const error = {
      message: unauthenticatedMessage,
      locations: [{ line: 1, column: 12 }],
      path: ['me'],
      extensions: { code: 'UNAUTHENTICATED' },
    };
    return { status: 200, body: { errors: [error], data: null } };
  }
  const profile: Record<string, unknown> = {
    id: user.id, username: user.username, name: user.name, profilePicture: user.profilePicture, email: user.email,
  };
  const me = Object.fromEntries(fields.map((field) => [field, profile[field] ?? null]));
  return { status: 200, body: { data: { me } } };
}

export async function startHashnodeSimulator(users: SimulatedHashnodeUser[]): Promise<RunningSimulator> {
  return startSimulatorServer((request) => handle(request, users), { status: 404, body: 'Not Found' });
}
