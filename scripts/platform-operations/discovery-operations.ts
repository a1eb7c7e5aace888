import type { DescribedOperation, JsonSchema } from '../../test/simulators/kit/operation-file.ts';
import type { DerivedOperations } from './openapi-operations.ts';

/**
 * Reads the operations SPS calls out of a Google API discovery document (the REST description
 * every Google API publishes, and google.golang.org/api vendors): each method of
 * `resources.*.methods` by its HTTP method and its path under the document's `servicePath`
 * (`GET /youtube/v3/videos`, `GET /v1/{+parent}/locations`; the `flatPath` form names the same
 * method), or by its media upload path (`POST /upload/youtube/v3/videos`, `mediaUpload.protocols`),
 * which takes the media's types as well as the JSON request. Path and query parameters keep their
 * type, enum, pattern and `required`; a `repeated` one is a list; the document's own `parameters`
 * (access_token, alt, fields, key, prettyPrint, quotaUser, uploadType...) go with every method.
 * Schemas become JSON Schema 2020-12 without prose, as open as the document writes them (the check
 * closes request objects itself), so a schema another description of the same service's messages
 * writes (the v4 API's OpenAPI and google.type.Date) is the same definition.
 * Google's error envelope (cloud.google.com/apis/design/errors, with the `errors` list the older
 * APIs such as YouTube still send) answers 4XX and 5XX.
 */
type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Keys of a discovery schema that describe values; the rest is prose or client-library hints. */
const kept = new Set(['type', 'format', 'enum', 'pattern', 'minimum', 'maximum']);

const googleError: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'integer' },
        message: { type: 'string' },
        status: { type: 'string' },
        errors: { type: 'array', items: { type: 'object' } },
        details: { type: 'array', items: { type: 'object' } },
      },
    },
  },
};

interface Method {
  method: Node;
  /** The media upload path's types, where the route is one. */
  uploadTypes: string[] | null;
}

function methodsOf(resources: unknown, into: Node[]): Node[] {
  if (!isNode(resources)) return into;
  for (const resource of Object.values(resources)) {
    if (!isNode(resource)) continue;
    if (isNode(resource.methods)) into.push(...Object.values(resource.methods).filter(isNode));
    methodsOf(resource.resources, into);
  }
  return into;
}

/** Every route the document writes, each with the method it names. */
function routesOf(document: Node): Map<string, Method> {
  const servicePath = typeof document.servicePath === 'string' ? document.servicePath : '';
  const routes = new Map<string, Method>();
  for (const method of methodsOf(document.resources, [])) {
    const verb = String(method.httpMethod);
    for (const path of [method.path, method.flatPath]) {
      if (typeof path === 'string') routes.set(`${verb} /${servicePath}${path}`, { method, uploadTypes: null });
    }
    const upload = isNode(method.mediaUpload) ? method.mediaUpload : {};
    const protocols = isNode(upload.protocols) ? upload.protocols : {};
    const accept = Array.isArray(upload.accept) ? upload.accept.map(String) : [];
    for (const protocol of Object.values(protocols)) {
      if (isNode(protocol) && typeof protocol.path === 'string') {
        routes.set(`${verb} ${protocol.path}`, { method, uploadTypes: accept });
      }
    }
  }
  return routes;
}

export function discoveryOperations(document: Node, routes: string[]): DerivedOperations {
  if (document.kind !== 'discovery#restDescription') throw new Error('not a Google discovery document');
  const schemas = isNode(document.schemas) ? document.schemas : {};
  const wanted = new Set<string>();

  function schema(input: unknown): JsonSchema {
    if (!isNode(input)) return {};
    if (typeof input.$ref === 'string') {
      if (!(input.$ref in schemas)) throw new Error(`schema ${input.$ref} is referenced but not defined`);
      wanted.add(input.$ref);
      return { $ref: `#/definitions/${input.$ref}` };
    }
    const out: Node = {};
    for (const [key, value] of Object.entries(input)) {
      if (!kept.has(key)) continue;
      // Discovery writes bounds as strings ("0", "50").
      out[key] = (key === 'minimum' || key === 'maximum') && typeof value === 'string' ? Number(value) : value;
    }
    if (out.type === 'any') delete out.type;
    if (isNode(input.properties)) {
      const members = Object.entries(input.properties).map(([name, member]) => [name, schema(member)]);
      out.properties = Object.fromEntries(members);
    }
    if (input.items !== undefined) out.items = schema(input.items);
    if (input.additionalProperties !== undefined) out.additionalProperties = schema(input.additionalProperties);
    return out;
  }

  function parameter(input: Node): JsonSchema {
    const single = schema(input);
    return input.repeated === true ? { type: 'array', items: single } : single;
  }

  const common = isNode(document.parameters) ? document.parameters : {};
  const written = routesOf(document);
  const refusal: JsonSchema = { $ref: '#/definitions/GoogleError' };

  const operations = routes.map((route): DescribedOperation => {
    const found = written.get(route);
    if (found === undefined) {
      const last = route.split(/[/:]/).at(-1) ?? route;
      const near = [...written.keys()].filter((candidate) => candidate.includes(last)).slice(0, 5);
      throw new Error(`${route} is not in the description (routes like it: ${near.join(', ')})`);
    }
    const { method, uploadTypes } = found;
    const own = isNode(method.parameters) ? method.parameters : {};
    const inPath: Node = {};
    const inQuery: Node = {};
    const required = { path: [] as string[], query: [] as string[] };
    // The route's own names: a `flatPath` names its segments (`accountsId`) where `path` has `{+parent}`.
    const names = [...route.matchAll(/\{\+?([^{}]+)\}/g)].map((match) => match[1] ?? '');
    for (const name of names) {
      const described = own[name];
      inPath[name] = isNode(described) && described.location === 'path' ? parameter(described) : { type: 'string' };
      required.path.push(name);
    }
    for (const [name, raw] of [...Object.entries(common), ...Object.entries(own)]) {
      if (!isNode(raw) || raw.location !== 'query') continue;
      inQuery[name] = parameter(raw);
      if (raw.required === true) required.query.push(name);
    }
    const body: Record<string, JsonSchema> = {};
    if (method.request !== undefined) body['application/json'] = schema(method.request);
    // The media's bytes are the simulator's to judge.
    for (const type of uploadTypes ?? []) body[type] = {};
    const object = (properties: Node, needed: string[]): JsonSchema => ({
      type: 'object', ...(needed.length > 0 ? { required: needed } : {}), properties,
    });
    return {
      route,
      ...(names.length > 0 ? { pathParameters: object(inPath, required.path) } : {}),
      query: object(inQuery, required.query),
      ...(Object.keys(body).length > 0 ? { body, bodyRequired: true } : {}),
      responses: {
        200: method.response === undefined ? null : schema(method.response),
        '4XX': refusal,
        '5XX': refusal,
      },
    };
  });

  const definitions: Record<string, JsonSchema> = { GoogleError: googleError };
  for (let pending = [...wanted]; pending.length > 0; pending = [...wanted].filter((name) => !(name in definitions))) {
    for (const name of pending) definitions[name] = schema(schemas[name]);
  }
  const sorted = Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b));
  return { operations, definitions: Object.fromEntries(sorted) };
}
