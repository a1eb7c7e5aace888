import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DescribedOperation, JsonSchema } from '../../test/simulators/kit/operation-file.ts';
import type { DerivedOperations } from './openapi-operations.ts';
import { wordpressAnswerSchemas, type WordpressAnswerSchemas } from './wordpress-answers.ts';

/**
 * Reads the REST routes SPS calls out of a WordPress site's own route dumps (the folder
 * wordpress-6.1.9/: `wp-json-index.json`, the REST index of a real 6.1.9, and `OPTIONS_<route>.json`,
 * each route's OPTIONS answer with its item schema), the answers' schemas out of
 * johnbillion/wp-json-schemas beside it (wordpress-answers.ts). A selection names routes as the
 * index writes them (`GET /wp/v2/users/me`, `POST /wp/v2/posts/(?P<id>[\d]+)`); a named group
 * becomes a path parameter (`/wp/v2/posts/{id}`) with the group's pattern.
 * Requests, as WP_REST_Server and rest_validate_value_from_schema (6.1) read them:
 * - an endpoint's `args` are its parameters; GET and DELETE take them from the query, the other
 *   methods from a JSON or form body (and the query, where none is required);
 * - WordPress looks only at the arguments a route registers and ignores any other, so the query
 *   and body schemas stay open (`additionalProperties: true`); a nested object is open unless
 *   the argument says `additionalProperties: false`, as WordPress checks it;
 * - an argument's `required: true` joins its object's `required` list; of string formats only
 *   those WordPress checks are kept (date-time, email, ip, uuid, hex-color), `uri` and the
 *   sanitizing ones (text-field) being no check there; prose (description, context, readonly)
 *   is left out.
 * Answers: the route's item schema is named by the OPTIONS dump's `schema.title` (`user`,
 * `post`, `attachment`); its johnbillion schema answers 200 (201 for a POST to a collection, an
 * array of items for a GET of one), and the REST error body answers 4XX.
 */
type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where the answers' schemas sit, beside the route dumps in the platform-specs folder. */
export const answersFolder = path.join('johnbillion+wp-json-schemas', 'schemas', 'rest-api');

const keptKeys = new Set([
  'type', 'enum', 'default', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems',
  'uniqueItems', 'multipleOf', 'minProperties', 'maxProperties',
]);

const checkedFormats: Record<string, JsonSchema> = {
  'date-time': { format: 'date-time' },
  email: { format: 'email' },
  ip: { anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] },
  uuid: { format: 'uuid' },
  'hex-color': { pattern: '^#([A-Fa-f0-9]{3}){1,2}$' },
};

/** One argument's schema as JSON Schema, its properties' `required: true` lifted to a list. */
export function argumentSchema(input: unknown): JsonSchema {
  if (!isNode(input)) return {};
  const out: Node = {};
  for (const [key, value] of Object.entries(input)) if (keptKeys.has(key)) out[key] = value;
  // draft-03/04 bounds as booleans beside minimum and maximum.
  if (input.exclusiveMinimum === true && typeof out.minimum === 'number') {
    out.exclusiveMinimum = out.minimum;
    delete out.minimum;
  }
  if (input.exclusiveMaximum === true && typeof out.maximum === 'number') {
    out.exclusiveMaximum = out.maximum;
    delete out.maximum;
  }
  const format = typeof input.format === 'string' ? checkedFormats[input.format] : undefined;
  if (format !== undefined) Object.assign(out, format);
  // PHP writes an empty list of properties as [].
  if (isNode(input.properties) || Array.isArray(input.properties)) {
    const members = isNode(input.properties) ? input.properties : {};
    out.properties = Object.fromEntries(Object.entries(members)
      .map(([name, member]) => [name, argumentSchema(member)]));
    const required = Object.entries(members).filter(([, member]) => isNode(member) && member.required === true);
    if (required.length > 0) out.required = required.map(([name]) => name);
    else if (Array.isArray(input.required)) out.required = input.required;
  }
  if (input.items !== undefined) out.items = argumentSchema(input.items);
  const additional = input.additionalProperties;
  if (typeof additional === 'boolean' || isNode(additional)) {
    out.additionalProperties = typeof additional === 'boolean' ? additional : argumentSchema(additional);
  } else if (out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object'))) {
    out.additionalProperties = true;
  }
  for (const key of ['anyOf', 'oneOf']) {
    const list = input[key];
    if (Array.isArray(list)) out[key] = list.map((member) => argumentSchema(member));
  }
  return out;
}

function argumentsSchema(args: unknown, withRequired: boolean): JsonSchema {
  const members = isNode(args) ? args : {};
  const properties = Object.fromEntries(Object.entries(members).map(([name, arg]) => [name, argumentSchema(arg)]));
  const required = Object.entries(members).filter(([, arg]) => isNode(arg) && arg.required === true)
    .map(([name]) => name);
  return {
    type: 'object',
    properties,
    ...(withRequired && required.length > 0 ? { required } : {}),
    additionalProperties: true,
  };
}

/** `/wp/v2/posts/(?P<id>[\d]+)` as `/wp/v2/posts/{id}` and its parameters' patterns. */
function pathTemplate(route: string): { template: string; parameters: Record<string, string> } {
  const parameters: Record<string, string> = {};
  const template = route.replace(/\(\?P<(\w+)>((?:[^()]|\([^()]*\))+)\)/g, (_whole, name: string, pattern: string) => {
    parameters[name] = `^${pattern}$`;
    return `{${name}}`;
  });
  return { template, parameters };
}

/** The OPTIONS dump of a route: `/wp/v2/posts/(?P<id>[\d]+)` is OPTIONS_wp_v2_posts_id.json. */
function optionsFile(folder: string, template: string): string {
  const name = template.replace(/^\//, '').replace(/[{}]/g, '').replaceAll('/', '_');
  return path.join(folder, `OPTIONS_${name}.json`);
}

function readJson(file: string, filesRead: string[]): Node {
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!isNode(parsed)) throw new Error(`${file} holds no object`);
  if (!filesRead.includes(file)) filesRead.push(file);
  return parsed;
}

function answers(
  method: string,
  template: string,
  item: JsonSchema | null,
  schemas: WordpressAnswerSchemas,
): DescribedOperation['responses'] {
  const single = /\}$|\/me$/.test(template);
  const responses: DescribedOperation['responses'] = {};
  if (method === 'GET') responses['200'] = item === null || single ? item : { type: 'array', items: item };
  else if (method === 'POST' && !single) responses['201'] = item;
  else responses['200'] = method === 'DELETE' ? null : item;
  responses['4XX'] = { $ref: `#/definitions/${schemas.reference('error.json')}` };
  return responses;
}

export function wordpressOperations(folder: string, routes: string[]): DerivedOperations {
  const filesRead: string[] = [];
  const index = readJson(path.join(folder, 'wp-json-index.json'), filesRead);
  const indexRoutes = isNode(index.routes) ? index.routes : {};
  const schemas = wordpressAnswerSchemas(path.join(folder, '..', answersFolder), filesRead);
  const operations = routes.map((selected): DescribedOperation => {
    const [method = '', route = ''] = selected.split(' ');
    const described = indexRoutes[route];
    if (!isNode(described)) throw new Error(`WordPress has no route ${route}`);
    const endpoints = Array.isArray(described.endpoints) ? described.endpoints as unknown[] : [];
    const endpoint = endpoints.find((candidate) => isNode(candidate) && Array.isArray(candidate.methods)
      && candidate.methods.includes(method));
    if (!isNode(endpoint)) throw new Error(`WordPress's ${route} takes no ${method}`);
    const { template, parameters } = pathTemplate(route);
    const operation: DescribedOperation = { route: `${method} ${template}`, responses: {} };
    if (Object.keys(parameters).length > 0) {
      operation.pathParameters = {
        type: 'object',
        required: Object.keys(parameters),
        properties: Object.fromEntries(Object.entries(parameters)
          .map(([name, pattern]) => [name, { type: 'string', pattern }])),
      };
    }
    const inQuery = method === 'GET' || method === 'DELETE';
    operation.query = argumentsSchema(endpoint.args, inQuery);
    if (!inQuery) {
      const body = argumentsSchema(endpoint.args, true);
      operation.body = { 'application/json': body, 'application/x-www-form-urlencoded': body };
      operation.bodyRequired = false;
    }
    const options = optionsFile(folder, template);
    let item: JsonSchema | null = null;
    try {
      const dump = readJson(options, filesRead);
      const title = isNode(dump.schema) ? dump.schema.title : undefined;
      if (typeof title === 'string') item = { $ref: `#/definitions/${schemas.reference(`${title}.json`)}` };
    } catch (error) {
      // A route without an OPTIONS dump has no item schema to name; its answers stay unchecked.
      if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
    }
    operation.responses = answers(method, template, item, schemas);
    return operation;
  });
  return { operations, definitions: schemas.definitions, filesRead };
}
