import type { DescribedOperation, JsonSchema } from '../../test/simulators/kit/operation-file.ts';
import { plainSchema, type SchemaDialect } from './description-schema.ts';

/**
 * Reads the operations SPS calls out of an OpenAPI 3.0/3.1 or Swagger 2.0 description: each
 * route's path and query parameters as object schemas, its body per media type, and its answers'
 * schemas per status, with the named schemas they reach gathered into `definitions`.
 */
type Node = Record<string, unknown>;

const methods = ['get', 'post', 'put', 'patch', 'delete'];

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pointer(document: Node, reference: string): unknown {
  if (!reference.startsWith('#/')) throw new Error(`only local references are read: ${reference}`);
  let at: unknown = document;
  for (const raw of reference.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    at = isNode(at) ? at[key] : undefined;
  }
  if (at === undefined) throw new Error(`a reference to nothing: ${reference}`);
  return at;
}

/** Parameters, bodies and responses may themselves be references (to components, not schemas). */
function deref(document: Node, value: unknown): Node {
  let at = value;
  for (let hops = 0; isNode(at) && typeof at.$ref === 'string'; hops += 1) {
    if (hops > 10) throw new Error('a reference loop');
    at = pointer(document, at.$ref);
  }
  return isNode(at) ? at : {};
}

interface ObjectSchemaParts {
  properties: Record<string, JsonSchema>;
  required: string[];
}

function objectSchema(parts: ObjectSchemaParts): JsonSchema | undefined {
  if (Object.keys(parts.properties).length === 0) return undefined;
  return {
    type: 'object',
    properties: parts.properties,
    ...(parts.required.length > 0 ? { required: parts.required } : {}),
  };
}

const jsonMediaType = /^application\/(?:[\w.+-]+\+)?json\b/;

export interface DerivedOperations {
  operations: DescribedOperation[];
  definitions: Record<string, JsonSchema>;
  /** The files a reader of a description split over a folder read, fingerprinted in that order. */
  filesRead?: string[];
}

export function openapiOperations(document: Node, routes: string[]): DerivedOperations {
  const swagger = document.swagger === '2.0';
  const openapi = typeof document.openapi === 'string' ? document.openapi : '';
  if (!swagger && !openapi.startsWith('3.')) throw new Error('neither OpenAPI 3 nor Swagger 2.0');
  const dialect: SchemaDialect = {
    legacy: swagger || openapi.startsWith('3.0'),
    namedPrefix: swagger ? '#/definitions/' : '#/components/schemas/',
  };
  const wanted = new Set<string>();
  const schema = (input: unknown): JsonSchema => plainSchema(input, dialect, (name) => { wanted.add(name); });
  const paths = isNode(document.paths) ? document.paths : {};

  const operations = routes.map((route): DescribedOperation => {
    const [method = '', path = ''] = route.split(' ');
    const item = deref(document, paths[path]);
    const operation = item[method.toLowerCase()];
    if (!methods.includes(method.toLowerCase()) || !isNode(operation)) {
      const near = Object.keys(paths).filter((candidate) => candidate.includes(path.split('/').at(-1) ?? path));
      throw new Error(`${route} is not in the description (paths like it: ${near.slice(0, 5).join(', ')})`);
    }
    const parameters = [item.parameters, operation.parameters]
      .flatMap((list) => (Array.isArray(list) ? (list as unknown[]) : []))
      .map((parameter) => deref(document, parameter));
    const inPath: ObjectSchemaParts = { properties: {}, required: [] };
    const inQuery: ObjectSchemaParts = { properties: {}, required: [] };
    const inForm: ObjectSchemaParts = { properties: {}, required: [] };
    const body: Record<string, JsonSchema> = {};
    const commaSeparated: string[] = [];
    let bodyRequired = false;
    for (const parameter of parameters) {
      const name = String(parameter.name);
      const place = parameter.in;
      const target = place === 'path' ? inPath : place === 'query' ? inQuery : place === 'formData' ? inForm : null;
      if (place === 'body') {
        body['application/json'] = schema(parameter.schema);
        bodyRequired = parameter.required === true;
        continue;
      }
      if (target === null) continue;
      // Swagger 2.0 writes a parameter's type on the parameter itself.
      const { name: _name, in: _in, required: _required, schema: inner, ...rest } = parameter;
      target.properties[name] = schema(swagger ? rest : inner ?? {});
      // OpenAPI's form style explodes query arrays unless told not to; Swagger 2.0 writes csv by default.
      const joined = swagger ? (parameter.collectionFormat ?? 'csv') === 'csv' : parameter.explode === false;
      if (place === 'query' && joined && (swagger ? rest.type : isNode(inner) ? inner.type : null) === 'array') {
        commaSeparated.push(name);
      }
      if (parameter.required === true || place === 'path') target.required.push(name);
    }
    const form = objectSchema(inForm);
    if (form !== undefined) {
      const consumes = Array.isArray(operation.consumes) ? operation.consumes : document.consumes;
      const types = Array.isArray(consumes) ? consumes.map(String) : ['application/x-www-form-urlencoded'];
      for (const type of types) body[type] = form;
      bodyRequired = inForm.required.length > 0;
    }
    if (operation.requestBody !== undefined) {
      const requestBody = deref(document, operation.requestBody);
      const content = isNode(requestBody.content) ? requestBody.content : {};
      for (const [type, media] of Object.entries(content)) body[type] = schema(deref(document, media).schema);
      bodyRequired = requestBody.required === true;
    }
    const responses: Record<string, JsonSchema | null> = {};
    for (const [status, raw] of Object.entries(isNode(operation.responses) ? operation.responses : {})) {
      const response = deref(document, raw);
      if (swagger) {
        responses[status] = response.schema === undefined ? null : schema(response.schema);
        continue;
      }
      // X answers errors as application/json or application/problem+json: either shape is the platform's.
      const content = isNode(response.content) ? response.content : {};
      const shapes = Object.entries(content)
        .filter(([type]) => jsonMediaType.test(type) || type === '*/*')
        .map(([, media]) => deref(document, media).schema)
        .filter((shape) => shape !== undefined)
        .map(schema);
      responses[status] = shapes.length === 0 ? null : shapes.length === 1 ? shapes[0] ?? null : { anyOf: shapes };
    }
    const pathParameters = objectSchema(inPath);
    const query = objectSchema(inQuery);
    return {
      route,
      ...(pathParameters === undefined ? {} : { pathParameters }),
      ...(query === undefined ? {} : { query }),
      ...(commaSeparated.length > 0 ? { commaSeparated } : {}),
      ...(Object.keys(body).length > 0 ? { body, bodyRequired } : {}),
      responses,
    };
  });

  const definitions: Record<string, JsonSchema> = {};
  const named = swagger ? document.definitions : isNode(document.components) ? document.components.schemas : {};
  const library = isNode(named) ? named : {};
  for (let pending = [...wanted]; pending.length > 0; pending = [...wanted].filter((name) => !(name in definitions))) {
    for (const name of pending) {
      if (!(name in library)) throw new Error(`#/definitions/${name} is referenced but not defined`);
      definitions[name] = schema(library[name]);
    }
  }
  const sorted = Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b));
  return { operations, definitions: Object.fromEntries(sorted) };
}
