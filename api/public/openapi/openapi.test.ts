import { request } from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOrganization } from '../../../shared/domain/organizations/organizations.ts';
import { errorStatus } from '../../../shared/errors.ts';
import { api } from '../../../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../../test/support/test-context.ts';
import type { PublicApiDeps } from '../public-api-deps.ts';
import { publicRoutes } from '../public-routes.ts';

const prefix = '/api/public/v1';
// The spec's tags, and SPS's own Webhooks and API Keys.
const specTags = [
  'Integrations', 'Posts', 'Uploads', 'Notifications', 'Analytics', 'Video Generation', 'Webhooks', 'API Keys',
];
const httpMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Only the parts of the document the assertions read; everything else passes through untouched. */
const parameterShape = z.looseObject({ name: z.string(), in: z.string(), required: z.boolean().optional() });
const operationShape = z.looseObject({
  tags: z.array(z.string()).optional(),
  operationId: z.string().optional(),
  parameters: z.array(parameterShape).optional(),
  requestBody: z.looseObject({ content: z.record(z.string(), z.looseObject({ schema: z.record(z.string(), z.unknown()) })) }).optional(),
  responses: z.record(z.string(), z.unknown()),
});
const documentShape = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ version: z.string() }),
  tags: z.array(z.looseObject({ name: z.string() })),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});
type Operation = z.infer<typeof operationShape>;
type OpenApiDocument = z.infer<typeof documentShape>;

interface DocumentedOperation {
  method: string;
  path: string;
  operation: Operation;
}

function operationsOf(document: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item)
    .filter(([method]) => httpMethods.has(method))
    .map(([method, operation]) => ({ method, path, operation: operationShape.parse(operation) })));
}

/** `{name}` placeholders of an OpenAPI path template, in order. */
function templateNames(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1] ?? '');
}

/** Deps whose members must never be touched while the routes are only being defined. */
const untouchableDeps = new Proxy({}, {
  get(_target, key) {
    throw new Error(`publicRoutes read deps.${String(key)} while defining routes`);
  },
}) as PublicApiDeps;

/** A plausible value for a path parameter: an id (Mongo-looking unless told otherwise) unless the name says otherwise. */
function madeUpValue(name: string, id = '0123456789abcdef01234567'): string {
  if (name === 'provider') return 'no-such-platform';
  if (name === 'group') return 'made-up-group';
  return id;
}

function concretePath(path: string, id?: string): string {
  return path.replace(/\{([^{}]+)\}/g, (_match, name: string) => encodeURIComponent(madeUpValue(name, id)));
}

describe('OpenAPI document and API reference', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;
  let document: OpenApiDocument;
  let rawDocument: Record<string, unknown>;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    ({ apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Docs reader' }));
    const response = await api(stack.baseUrl, null, `${prefix}/openapi.json`);
    expect(response.status).toBe(200);
    rawDocument = z.record(z.string(), z.unknown()).parse(response.body);
    document = documentShape.parse(response.body);
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  it('serves, without credentials, a valid OpenAPI 3.1.0 document of API version 1.0.0', async () => {
    const result = await new Validator().validate(rawDocument);
    expect(result.valid, `OpenAPI validation errors:\n${JSON.stringify(result.errors, null, 2)}`).toBe(true);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.tags.map((tag) => tag.name).sort()).toEqual([...specTags].sort());
  });

  it('lists exactly the routes publicRoutes defines, nothing more or less', () => {
    const expected = publicRoutes(untouchableDeps).map((route) => `${route.method.toUpperCase()} ${prefix}${route.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(new Set(expected).size).toBe(expected.length);
    const documented = operationsOf(document).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(documented.sort()).toEqual(expected.sort());
    // The spec's surface, named explicitly so an accidental removal on both sides is still caught.
    expect(documented).toEqual(expect.arrayContaining([
      `GET ${prefix}/integrations`, `GET ${prefix}/is-connected`, `POST ${prefix}/posts`, `GET ${prefix}/posts`,
      `DELETE ${prefix}/posts/{id}`, `DELETE ${prefix}/posts/group/{group}`, `POST ${prefix}/upload`, `GET ${prefix}/notifications`,
      `POST ${prefix}/generate-video`, `GET ${prefix}/analytics/{id}`,
    ]));
  });

  it('serves every documented operation: never the router\'s "no route" 404, never a 5xx other than 501, always a documented status', async () => {
    // Ids are opaque: a Mongo-looking one and one that could never be an ObjectId must both be answered cleanly.
    for (const id of ['0123456789abcdef01234567', 'not-an-object-id']) {
      for (const { method, path, operation } of operationsOf(document)) {
        const url = concretePath(path, id);
        const name = `${method.toUpperCase()} ${url}`;
        const takesBody = method === 'post' || method === 'put';
        const response = await api(stack.baseUrl, apiKey, url, { method: method.toUpperCase(), ...(takesBody ? { body: {} } : {}) });
        const message = z.object({ message: z.string() }).safeParse(response.body).data?.message ?? '';
        expect(message, name).not.toMatch(/^no route for/);
        if (response.status >= 500) expect(response.status, `${name}: ${JSON.stringify(response.body)}`).toBe(501);
        expect(Object.keys(operation.responses), `${name} answered ${response.status} ${message}`).toContain(String(response.status));
      }
    }
  });

  it('requires credentials on every documented operation (they all document 401)', async () => {
    for (const { method, path } of operationsOf(document)) {
      const url = concretePath(path);
      const response = await api(stack.baseUrl, null, url, { method: method.toUpperCase() });
      expect(response.status, `${method.toUpperCase()} ${url}`).toBe(401);
      expect(response.body).toMatchObject({ error: 'missing_credentials' });
    }
  });

  it('does not serve an operation missing from the document', async () => {
    expect(document.paths[`${prefix}/posts`]?.patch).toBeUndefined();
    const patch = await fetch(`${stack.baseUrl}${prefix}/posts`, { method: 'PATCH', headers: { Authorization: apiKey, 'Content-Type': 'application/json' }, body: '{}' });
    expect(patch.status).toBe(405);
    expect(await patch.json()).toMatchObject({ statusCode: 405, error: 'method_not_allowed' });

    // Every other method on every documented path is refused the same way, with the methods it
    // does take; TRACE and PROPFIND too, which the router alone would answer 501 (a 5xx).
    for (const [path, item] of Object.entries(document.paths)) {
      const documented = ['get', 'post', 'put', 'delete']
        .filter((candidate) => candidate in item)
        .map((method) => method.toUpperCase());
      for (const method of ['get', 'post', 'put', 'delete', 'patch', 'trace', 'propfind']
        .filter((candidate) => !(candidate in item))) {
        const url = concretePath(path);
        const name = `${method.toUpperCase()} ${url}`;
        // node:http, because fetch refuses to send TRACE.
        const response = await new Promise<{ status: number; allow: string; body: string }>((resolve, reject) => {
          const sent = request(
            `${stack.baseUrl}${url}`,
            { method: method.toUpperCase(), headers: { Authorization: apiKey } },
            (answer) => {
              let body = '';
              answer.on('data', (chunk: Buffer) => { body += chunk.toString(); });
              answer.on('end', () => {
                resolve({ status: answer.statusCode ?? 0, allow: answer.headers.allow ?? '', body });
              });
            },
          );
          sent.on('error', reject);
          sent.end();
        });
        expect(response.status, name).toBe(405);
        expect(response.allow.split(', ').filter((allowed) => documented.includes(allowed)).sort(), name)
          .toEqual([...documented].sort());
        expect(JSON.parse(response.body), name).toMatchObject({ statusCode: 405, error: 'method_not_allowed' });
      }
    }

    expect(document.paths[`${prefix}/not-a-route`]).toBeUndefined();
    const unknown = await api(stack.baseUrl, apiKey, `${prefix}/not-a-route`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'not_found', message: `no route for GET ${prefix}/not-a-route` });
  });

  it('answers a wrong method on a served path with the JSON error shape (method_not_allowed)', async () => {
    const response = await fetch(`${stack.baseUrl}${prefix}/posts`, { method: 'PATCH', headers: { Authorization: apiKey } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/GET/);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ statusCode: 405, error: 'method_not_allowed' });
  });

  it('documents success, tags, 401 and 429 on every operation, and 400 and 413 where a JSON body is taken', () => {
    const routes = new Map(publicRoutes(untouchableDeps).map((route) => [`${route.method} ${prefix}${route.path.replace(/:(\w+)/g, '{$1}')}`, route]));
    for (const { method, path, operation } of operationsOf(document)) {
      const name = `${method.toUpperCase()} ${path}`;
      const route = routes.get(`${method} ${path}`);
      expect(route, name).toBeDefined();
      if (route === undefined) continue;
      const statuses = Object.keys(operation.responses);
      expect(statuses, name).toContain(String(route.status));
      expect(statuses.filter((status) => /^2\d\d$/.test(status)), name).toEqual([String(route.status)]);
      expect(operation.tags, name).toEqual([route.tag]);
      expect(specTags, name).toEqual(expect.arrayContaining(operation.tags ?? ['<no tags>']));
      expect(statuses, name).toEqual(expect.arrayContaining(['401', '429']));
      if (route.multipartFile !== undefined) {
        expect(Object.keys(operation.requestBody?.content ?? {}), name).toEqual(['multipart/form-data']);
      } else if (route.body === undefined) {
        expect(operation.requestBody, name).toBeUndefined();
      } else {
        expect(statuses, name).toEqual(expect.arrayContaining(['400', '413']));
        expect(Object.keys(operation.requestBody?.content ?? {}), name).toEqual(['application/json']);
      }
      // Every error the route says it can answer with has its status documented.
      expect(statuses.map(Number), name).toEqual(expect.arrayContaining(route.errors.map((code) => errorStatus[code])));
    }
  });

  it('answers the documented 413 and 415 on every route that takes a JSON body', async () => {
    const bodyRoutes = publicRoutes(untouchableDeps).filter((route) => route.body !== undefined);
    expect(bodyRoutes.length).toBeGreaterThan(0);
    for (const route of bodyRoutes) {
      const url = concretePath(`${prefix}${route.path.replace(/:(\w+)/g, '{$1}')}`);
      const name = `${route.method.toUpperCase()} ${url}`;
      const limit = route.bodyLimit ?? 1024 * 1024;
      // The posts route allows 50 MB; sending that much only to see a 413 is not worth the time here.
      if (limit <= 1024 * 1024) {
        const tooLarge = await api(stack.baseUrl, apiKey, url, { method: route.method.toUpperCase(), rawBody: JSON.stringify({ padding: 'x'.repeat(limit) }), headers: { 'Content-Type': 'application/json' } });
        expect(tooLarge.status, name).toBe(413);
        expect(tooLarge.body, name).toMatchObject({ error: 'payload_too_large' });
      }
      const notJson = await api(stack.baseUrl, apiKey, url, { method: route.method.toUpperCase(), rawBody: 'status=draft', headers: { 'Content-Type': 'text/plain' } });
      expect(notJson.status, name).toBe(415);
      expect(notJson.body, name).toMatchObject({ error: 'unsupported_media_type' });
      const broken = await api(stack.baseUrl, apiKey, url, { method: route.method.toUpperCase(), rawBody: '{"status":', headers: { 'Content-Type': 'application/json' } });
      expect(broken.status, name).toBe(400);
      expect(broken.body, name).toMatchObject({ error: 'invalid_json' });
    }
  });

  it('gives every operation a unique operationId', () => {
    const ids = operationsOf(document).map(({ operation }) => operation.operationId);
    for (const id of ids) expect(typeof id).toBe('string');
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents exactly the path parameters the path template names, each required', () => {
    for (const { method, path, operation } of operationsOf(document)) {
      const pathParameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
      expect(pathParameters.map((parameter) => parameter.name).sort(), `${method.toUpperCase()} ${path}`).toEqual(templateNames(path).sort());
      for (const parameter of pathParameters) expect(parameter.required, `${method.toUpperCase()} ${path} {${parameter.name}}`).toBe(true);
      const names = (operation.parameters ?? []).map((parameter) => `${parameter.in}:${parameter.name}`);
      expect(new Set(names).size, `${method.toUpperCase()} ${path}`).toBe(names.length);
    }
  });

  it('describes the POST /posts body with the zod schema the router validates it with', () => {
    const schema = document.paths[`${prefix}/posts`]?.post;
    const operation = operationShape.parse(schema);
    const body = z.looseObject({
      type: z.literal('object'),
      required: z.array(z.string()),
      properties: z.looseObject({
        type: z.looseObject({ enum: z.array(z.string()) }),
        posts: z.looseObject({ type: z.literal('array'), minItems: z.number(), maxItems: z.number() }),
        tags: z.looseObject({ maxItems: z.number() }),
      }),
    }).parse(operation.requestBody?.content['application/json']?.schema);
    expect(body.properties.type.enum).toEqual(['draft', 'schedule', 'now', 'update', 'queue']);
    expect(body.properties.posts.maxItems).toBe(50);
    expect(body.properties.posts.minItems).toBe(1);
    expect(body.properties.tags.maxItems).toBe(50);
    expect(body.required).toEqual(expect.arrayContaining(['type', 'posts']));
    // The list query's parameters come from listPostsQuery: both dates required, customer optional.
    const list = operationShape.parse(document.paths[`${prefix}/posts`]?.get);
    const query = Object.fromEntries((list.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => [parameter.name, parameter.required]));
    expect(query).toEqual({ startDate: true, endDate: true, customer: false, limit: false, cursor: false });
  });

  it('serves the reference page with local assets only', async () => {
    const page = await fetch(`${stack.baseUrl}${prefix}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const references = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="([^"]*)"/g)].map((match) => match[1] ?? '');
    expect(references.length).toBeGreaterThanOrEqual(3);
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    for (const reference of references) {
      expect(reference, reference).toMatch(new RegExp(`^${prefix}/docs/`));
      const asset = await fetch(`${stack.baseUrl}${reference}`);
      const text = await asset.text();
      expect(asset.status, reference).toBe(200);
      expect(asset.headers.get('content-type'), reference).toMatch(reference.endsWith('.css') ? /^text\/css/ : /^(?:text|application)\/javascript/);
      if (reference.endsWith('/init.js')) {
        expect(text).toContain(`${prefix}/openapi.json`);
        expect(text).toContain('SwaggerUIBundle');
      } else {
        expect(text.length, reference).toBeGreaterThan(10_000);
      }
    }
  });

  it('refuses asset names that are not on the list, including traversal attempts', async () => {
    for (const name of ['package.json', '..%2F..%2Fpackage.json', '..%2Fpackage.json', '%2e%2e%2f%2e%2e%2fpackage.json', 'index.html', 'swagger-initializer.js']) {
      const response = await fetch(`${stack.baseUrl}${prefix}/docs/assets/${name}`);
      const text = await response.text();
      expect(response.status, name).toBe(404);
      expect(text, name).not.toContain('"version"');
      expect(text, name).not.toContain('petstore');
    }
  });
});
