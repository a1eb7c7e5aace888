import {
  getOperationAST, getVariableValues, GraphQLError, parse, validate,
  type DocumentNode, type GraphQLSchema, type OperationDefinitionNode,
} from 'graphql';
import { OperationCheck, type RequestVerdict } from '../kit/operation-check.ts';
import type { OperationFile } from '../kit/operation-file.ts';
import {
  jsonBody, type HeldToOperations, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { graphqlSchemaOf } from './graphql-definitions.ts';

/**
 * The simulator held to Hashnode's operations (operations.json beside this file): the one HTTP
 * route, `POST /` with a JSON `{query, variables}`, checked by the kit; then the query itself,
 * parsed and validated by graphql-js against the schema the file's definitions describe, and its
 * variables coerced to their declared types, as Apollo Server does before running anything.
 * A request off the schema is refused in Apollo's shape with HTTP 400: GRAPHQL_PARSE_FAILED,
 * GRAPHQL_VALIDATION_FAILED (an unknown field or argument, a required argument left out) or
 * BAD_USER_INPUT (a variable that does not fit its type: an unknown input field, a wrong scalar);
 * one the route itself refuses is BAD_REQUEST.
 */
export interface GraphqlRequest {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Record<string, unknown>;
}

interface Refusal {
  code: string;
  errors: readonly GraphQLError[];
}

const emptyBody = 'POST body missing, invalid Content-Type, or JSON object has no keys.';
const noQuery = 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.';

/** An error as Apollo Server writes it: graphql-js's own fields and the code in `extensions`. */
export function apolloError(error: GraphQLError, code: string): Record<string, unknown> {
  return { ...error.toJSON(), extensions: { ...error.extensions, code } };
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {};
}

export class GraphqlOperationCheck extends OperationCheck {
  readonly schema: GraphQLSchema;
  private readonly refusals = new WeakMap<SimulatedRequest, Refusal>();
  private readonly requests = new WeakMap<SimulatedRequest, GraphqlRequest>();

  constructor(file: OperationFile) {
    super(file);
    this.schema = graphqlSchemaOf(file.definitions);
  }

  /** Parses, validates and coerces a body that passed the route's check; a refusal otherwise. */
  private read(body: Record<string, unknown>): GraphqlRequest | Refusal {
    let document: DocumentNode;
    try {
      document = parse(String(body.query));
    } catch (error) {
      if (error instanceof GraphQLError) return { code: 'GRAPHQL_PARSE_FAILED', errors: [error] };
      throw error;
    }
    const invalid = validate(this.schema, document);
    if (invalid.length > 0) return { code: 'GRAPHQL_VALIDATION_FAILED', errors: invalid };
    const name = typeof body.operationName === 'string' ? body.operationName : null;
    const operation = getOperationAST(document, name);
    if (operation === null || operation === undefined) {
      const message = name === null ? 'Must provide operation name if query contains multiple operations.'
        : `Unknown operation named "${name}".`;
      return { code: 'BAD_REQUEST', errors: [new GraphQLError(message)] };
    }
    const variables = objectOf(body.variables);
    const coerced = getVariableValues(this.schema, operation.variableDefinitions ?? [], variables);
    if (coerced.errors !== undefined) return { code: 'BAD_USER_INPUT', errors: coerced.errors };
    return { document, operation, variables };
  }

  override checkRequest(request: SimulatedRequest): RequestVerdict {
    const verdict = super.checkRequest(request);
    if (verdict.operation === null || verdict.problems.length > 0) return verdict;
    const read = this.read(objectOf(jsonBody(request)));
    if ('operation' in read) {
      this.requests.set(request, read);
      return verdict;
    }
    this.refusals.set(request, read);
    return { ...verdict, problems: read.errors.map((error) => error.message) };
  }

  /** The request as read, once the check passed it. */
  graphqlRequest(request: SimulatedRequest): GraphqlRequest | undefined {
    return this.requests.get(request);
  }

  refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
    const refusal = this.refusals.get(request);
    if (refusal !== undefined) {
      return { status: 400, body: { errors: refusal.errors.map((error) => apolloError(error, refusal.code)) } };
    }
    const body = jsonBody(request);
    const isObject = typeof body === 'object' && body !== null && Object.keys(body).length > 0;
    const missingQuery = isObject && typeof (body as Record<string, unknown>).query !== 'string';
    const message = missingQuery ? noQuery : isObject ? problems.join('; ') : emptyBody;
    return { status: 400, body: { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] } };
  }
}

export function hashnodeOperations(): HeldToOperations & { check: GraphqlOperationCheck } {
  const check = OperationCheck.forPlatformAs('hashnode', (file) => new GraphqlOperationCheck(file));
  return { check, refuse: (problems, request) => check.refuse(problems, request) };
}
