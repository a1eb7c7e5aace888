import { z } from 'zod';
import { errorBodySchema } from '../common-schemas.ts';
import type { RouteDefinition } from '../route-definition.ts';
import { errorStatus, type ErrorCode } from '../../../shared/errors.ts';

export const publicApiPrefix = '/api/public/v1';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  return rest;
}

/** Path and query parameters from an object schema: one OpenAPI parameter per property. */
function parameters(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (schema === undefined) return [];
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return { name, in: location, required: location === 'path' || (object.required ?? []).includes(name), schema: propertySchema, ...(typeof description === 'string' ? { description } : {}) };
  });
}

/** Errors every authenticated route can answer with, on top of its own. */
const commonErrors: ErrorCode[] = [
  'missing_credentials', 'invalid_credentials', 'rate_limited',
  'queue_unavailable', 'database_unavailable', 'internal_error',
];

/** What an idempotent route adds: its header and the two answers a reused key gets. */
const idempotencyErrors: ErrorCode[] = ['idempotency_key_reused', 'idempotency_request_running'];
const idempotencyParameter: JsonSchema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description: 'Repeat the request safely: the same key and body within 24 hours returns the first answer '
    + '(header Idempotent-Replayed: true) and creates nothing again.',
};

/** `post` and `/integrations/:id/time` give `postIntegrationsIdTime`: each separator drops, the next letter rises. */
function operationIdOf(method: string, path: string): string {
  const camel = path.replace(/(?<![:/-])[:/-]+(\w)/g, (_match, letter: string) => letter.toUpperCase());
  return `${method}${camel.replace(/\W/g, '')}`;
}

function errorResponses(route: RouteDefinition): Record<string, JsonSchema> {
  const keyed = route.idempotent === true ? idempotencyErrors : [];
  const bodyErrors: ErrorCode[] = route.body === undefined
    ? []
    : ['validation_failed', 'invalid_json', 'payload_too_large', 'unsupported_media_type'];
  const inputErrors: ErrorCode[] = route.query === undefined && route.params === undefined ? [] : ['validation_failed'];
  // Every route but GET /is-connected (scope `any`) refuses a credential without its scope.
  const scoped: ErrorCode[] = route.scope === 'any' ? [] : ['insufficient_scope'];
  const codes = [...new Set<ErrorCode>([
    ...route.errors, ...keyed, ...commonErrors, ...scoped, ...bodyErrors, ...inputErrors,
  ])];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  return Object.fromEntries([...byStatus.entries()].sort(([a], [b]) => a - b).map(([status, statusCodes]) => [
    String(status),
    { description: `Error: ${statusCodes.join(', ')}`, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
  ]));
}

/** `/posts/:id` → `/posts/{id}` */
export function openApiPath(koaPath: string): string {
  return `${publicApiPrefix}${koaPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
}

/**
 * The OpenAPI 3.1 document of the public API, generated from the same route definitions and zod
 * schemas that the router validates requests with: nothing is described twice.
 */
export function openApiDocument(routes: readonly RouteDefinition[], serverUrl: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method] = {
      tags: [route.tag],
      summary: route.summary,
      ...(route.description === undefined ? {} : { description: route.description }),
      operationId: operationIdOf(route.method, route.path),
      // The scope a credential needs (`read` also grants every GET): docs/api.md, "API keys and scopes".
      'x-scope': route.scope,
      parameters: [
        ...parameters(route.params, 'path'), ...parameters(route.query, 'query'),
        ...(route.idempotent === true ? [idempotencyParameter] : []),
      ],
      ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }),
      ...(route.multipartFile === undefined ? {} : { requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: [route.multipartFile], properties: { [route.multipartFile]: { type: 'string', contentMediaType: 'application/octet-stream' } } } } } } }),
      responses: {
        [String(route.status)]: { description: 'Success', content: { 'application/json': { schema: jsonSchema(route.response, 'output') } } },
        ...errorResponses(route),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'SPS public API',
      version: '1.0.0',
      description: 'Publish to social platforms: channels (integrations), posts, uploads, notifications. Send the API key or OAuth access token in the Authorization header, raw or as "Bearer <token>". 30 requests per hour per organization by default.',
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    tags: [
      'Integrations', 'Posts', 'Uploads', 'Notifications', 'Analytics', 'Video Generation', 'Webhooks', 'API Keys',
    ]
      .map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'API key or OAuth access token' } },
      schemas: { Error: jsonSchema(errorBodySchema, 'output') },
    },
  };
}
