import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DescribedOperation, JsonSchema } from '../../test/simulators/kit/operation-file.ts';
import type { DerivedOperations } from './openapi-operations.ts';

/**
 * Reads the Graph API calls SPS makes out of Meta's codegen specs (facebook-business-sdk-codegen,
 * api_specs/specs/<Node>.json: each node's `fields` and its `apis`, the edges with typed params).
 * Graph paths name an object by its id, not its type, so a selection names each route with the
 * nodes and edges it is:
 *
 *   `<METHOD> <path> <Node>[.<edge>][|<Node>[.<edge>]...]`
 *
 * - `GET /{version}/{page-id}/published_posts Page.published_posts`: an edge read, answered as a
 *   connection `{data: [<the edge's return node>], paging, summary}`;
 * - `POST /{version}/{page-id}/feed Page.feed`: an edge write, its params taken as query, form,
 *   multipart or JSON fields, answered as the edge's return node;
 * - `GET /{version}/{node-id} Page|PagePost`: a node read with `fields`, answered as one of the
 *   nodes (an id names any of them, so one route serves them all).
 * - `DELETE /{version}/{node-id} PagePost|AdVideo`: a node's own delete (`#delete` in the specs,
 *   no edge), its params taken like a write's, answered as its return (`Object`: open).
 * The derived route is the method and path. A node's definition holds its fields and its GET edges
 * (field expansion reads an edge as a field: `comments.summary(total_count)`), closed: Graph answers
 * only fields it has. Only the nodes the routes answer get a definition; a field of another node's
 * type is an open object. The description has no required fields, so none are.
 *
 * What Graph does on every call is not in the specs and comes from Meta's Graph API guides, each
 * named where it is added: `access_token` and `appsecret_proof` (Access Tokens, Securing Requests),
 * `fields` on reads (Field Expansion), `limit`/`after`/`before` and the `paging` object on edge reads
 * (Paginated Results), `{version}` as `v<major>.<minor>` (Versioning), and the error envelope
 * (Handling Errors) for 4XX and 5XX answers.
 */
export interface MetaField {
  name: string;
  type: string;
}

export interface MetaParam extends MetaField {
  required?: boolean;
}

export interface MetaApi {
  method: string;
  /** Absent on the node's own read, update and delete. */
  endpoint?: string;
  return?: string;
  params?: MetaParam[];
}

export interface MetaNode {
  fields: MetaField[];
  apis: MetaApi[];
}

/** A node's spec by its name, or undefined where the specs have no such node. */
export type MetaNodes = (name: string) => MetaNode | undefined;

/** How a value travels: in an answer, a JSON body, or a query or form field (a string Graph parses). */
type Mode = 'answer' | 'json' | 'form';

const primitives: Record<string, JsonSchema> = {
  string: { type: 'string' },
  int: { type: 'integer' },
  'unsigned int': { type: 'integer', minimum: 0 },
  float: { type: 'number' },
  bool: { type: 'boolean' },
  file: { type: 'string', format: 'binary' },
  Object: {},
  map: { type: 'object' },
  list: { type: 'array' },
};

/** `a, b<c, d>` split at its top-level commas. */
function topLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const character of text) {
    if (character === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
      continue;
    }
    if (character === '<') depth += 1;
    if (character === '>') depth -= 1;
    current += character;
  }
  parts.push(current.trim());
  return parts;
}

/**
 * Nodes are CamelCase (`IGUser`); enums are named in lower case or with underscores
 * (`pagefeed_with_enum_param`, `Application_supported_platforms`) and carry no values in these specs.
 */
const isNodeName = (name: string) => /^[A-Z][A-Za-z0-9]*$/.test(name);

/**
 * Graph's `fields`: names with `.modifier(args)` calls and `{sub,fields}` (two levels of braces),
 * comma-separated. The names are not listed here: a node's answer schema is closed, so a field the
 * node lacks shows where a simulator answers it.
 */
function fieldsSyntax(): string {
  const item = '[a-z0-9_]+(?:\\.[a-z_]+\\([^()]*\\))*(?:\\{(?:[^{}]|\\{[^{}]*\\})*\\})?';
  return `^${item}(?:,${item})*$`;
}

const graphParameters = {
  access_token: { type: 'string' },
  appsecret_proof: { type: 'string' },
};

const pagingParameters = {
  limit: { type: 'integer', minimum: 0 },
  after: { type: 'string' },
  before: { type: 'string' },
};

/** Graph's envelope of a refusal (Handling Errors); Meta adds fields such as `error_data` freely. */
const graphError: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        code: { type: 'integer' },
        error_subcode: { type: 'integer' },
        error_user_title: { type: 'string' },
        error_user_msg: { type: 'string' },
        is_transient: { type: 'boolean' },
        fbtrace_id: { type: 'string' },
      },
    },
  },
};

/** Paginated Results: cursors, and the next and previous pages' addresses when there are some. */
const graphPaging: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursors: {
      type: 'object',
      additionalProperties: false,
      properties: { before: { type: 'string' }, after: { type: 'string' } },
    },
    next: { type: 'string' },
    previous: { type: 'string' },
  },
};

interface Target {
  node: string;
  edge: string | null;
}

function parseRoute(line: string): { route: string; method: string; path: string; targets: Target[] } {
  const match = /^(GET|POST|DELETE) (\/\S*) (\S+)$/.exec(line);
  if (match === null) throw new Error(`"${line}" is not "<METHOD> <path> <Node>[.<edge>][|...]"`);
  const [, method = '', path = '', names = ''] = match;
  const targets = names.split('|').map((name): Target => {
    const [node = '', edge, ...rest] = name.split('.');
    if (rest.length > 0 || node === '') throw new Error(`${line}: "${name}" is not <Node>[.<edge>]`);
    return { node, edge: edge ?? null };
  });
  for (const { edge } of targets) {
    if (edge !== null && !path.endsWith(`/${edge}`)) {
      throw new Error(`${line}: the path does not end with the edge ${edge}`);
    }
  }
  return { route: `${method} ${path}`, method, path, targets };
}

/** Schemas met for one name across several targets: one, or any of them. */
function either(schemas: JsonSchema[]): JsonSchema {
  const distinct = schemas.filter((schema, index) =>
    schemas.findIndex((other) => JSON.stringify(other) === JSON.stringify(schema)) === index);
  return distinct.length === 1 ? distinct[0] ?? {} : { anyOf: distinct };
}

function objectOf(properties: Map<string, JsonSchema[]>): JsonSchema {
  const merged = [...properties].map(([name, found]) => [name, either(found)]);
  return { type: 'object', properties: Object.fromEntries(merged) };
}

export function metaOperationsFrom(nodes: MetaNodes, routes: string[]): DerivedOperations {
  const wanted = new Set<string>();
  const nodeOf = (name: string): MetaNode => {
    const node = nodes(name);
    if (node === undefined) throw new Error(`the specs have no node ${name}`);
    return node;
  };
  // The nodes the routes answer (read, or returned by an edge) type each other's fields; a field of
  // any other node is an open object. Typing every node a field or edge reaches pulled most of the
  // specs in (Page's 233 fields and edges reach Application, User...), and the check recompiled
  // them for every answer: seconds per simulator start.
  const answered = new Set<string>();
  for (const { method, targets } of routes.map(parseRoute)) {
    for (const { node, edge } of targets) {
      if (edge === null && method === 'GET') answered.add(node);
      const api = nodes(node)?.apis
        .find((candidate) => candidate.method === method && (candidate.endpoint ?? null) === edge);
      if (api?.return !== undefined) answered.add(api.return);
    }
  }

  function typeSchema(type: string, mode: Mode): JsonSchema {
    const trimmed = type.trim();
    const generic = /^(list|map)<(.*)>$/.exec(trimmed);
    // Graph reads a list or map in a query or form field as JSON text (or a comma-separated list).
    if (mode === 'form' && (generic !== null || ['list', 'map', 'Object'].includes(trimmed))) return { type: 'string' };
    if (generic !== null) {
      const [, kind, inner = ''] = generic;
      if (kind === 'list') return { type: 'array', items: typeSchema(inner, mode) };
      const [, value = 'string'] = topLevel(inner);
      return { type: 'object', additionalProperties: typeSchema(value, mode) };
    }
    // Graph takes a time as a Unix timestamp or an ISO 8601 string, and writes one as a string.
    if (trimmed === 'datetime') return mode === 'json' ? { type: ['string', 'integer'] } : { type: 'string' };
    const primitive = primitives[trimmed];
    if (primitive !== undefined) return primitive;
    if (!isNodeName(trimmed)) return { type: 'string' };
    // A node param is its id; a node in an answer is its fields, typed where the specs have the node.
    if (mode !== 'answer') return mode === 'form' ? { type: 'string' } : {};
    if (!answered.has(trimmed) || nodes(trimmed) === undefined) return { type: 'object' };
    wanted.add(trimmed);
    return { $ref: `#/definitions/${trimmed}` };
  }

  const connection = (item: JsonSchema): JsonSchema => ({
    type: 'object',
    additionalProperties: false,
    properties: {
      data: { type: 'array', items: item },
      paging: { $ref: '#/definitions/GraphPaging' },
      summary: { type: 'object' },
    },
  });

  function definitionOf(name: string): JsonSchema {
    const node = nodeOf(name);
    const properties: Record<string, JsonSchema> = {};
    for (const field of node.fields) properties[field.name] = typeSchema(field.type, 'answer');
    for (const api of node.apis) {
      // An edge read through field expansion (a field of the same name is what Graph answers), as one
      // shared connection: Page's 80 edges each written out took the check a second per answer to compile.
      if (api.method !== 'GET' || api.endpoint === undefined || api.endpoint in properties) continue;
      properties[api.endpoint] = { $ref: '#/definitions/GraphConnection' };
    }
    const sorted = Object.entries(properties).sort(([a], [b]) => a.localeCompare(b));
    return { type: 'object', additionalProperties: false, properties: Object.fromEntries(sorted) };
  }

  const refusal: JsonSchema = { $ref: '#/definitions/GraphError' };
  const operations = routes.map((line): DescribedOperation => {
    const { route, method, path: template, targets } = parseRoute(line);
    const query = new Map<string, JsonSchema[]>();
    const form = new Map<string, JsonSchema[]>();
    const json = new Map<string, JsonSchema[]>();
    const answers: JsonSchema[] = [];
    const add = (into: Map<string, JsonSchema[]>, name: string, schema: JsonSchema) => {
      into.set(name, [...(into.get(name) ?? []), schema]);
    };
    for (const [name, schema] of Object.entries(graphParameters)) {
      for (const into of method === 'GET' ? [query] : [query, form, json]) add(into, name, schema);
    }
    if (method === 'GET') add(query, 'fields', { type: 'string', pattern: fieldsSyntax() });
    for (const { node, edge } of targets) {
      const spec = nodeOf(node);
      if (edge === null && method === 'GET') {
        wanted.add(node);
        answers.push({ $ref: `#/definitions/${node}` });
        continue;
      }
      const api = spec.apis.find((candidate) => candidate.method === method && (candidate.endpoint ?? null) === edge);
      if (api === undefined) {
        const edges = spec.apis.filter((candidate) => candidate.method === method)
          .map((candidate) => candidate.endpoint);
        throw new Error(`${line}: ${node} has no ${method} ${edge ?? '(node)'} (it has ${edges.join(', ')})`);
      }
      const returned = typeSchema(api.return ?? 'Object', 'answer');
      if (method === 'GET') {
        for (const [name, schema] of Object.entries(pagingParameters)) add(query, name, schema);
        answers.push(connection(returned));
      } else {
        answers.push(returned);
      }
      for (const param of api.params ?? []) {
        add(query, param.name, typeSchema(param.type, 'form'));
        if (method === 'GET') continue;
        add(form, param.name, typeSchema(param.type, 'form'));
        add(json, param.name, typeSchema(param.type, 'json'));
      }
    }
    const names = [...template.matchAll(/\{([^{}]+)\}/g)].map((found) => found[1] ?? '');
    const pathParameters: JsonSchema | undefined = names.length === 0 ? undefined : {
      type: 'object',
      required: names,
      properties: Object.fromEntries(names.map((name) => [name, name === 'version'
        ? { type: 'string', pattern: '^v\\d+\\.\\d+$' } : { type: 'string' }])),
    };
    const formSchema = objectOf(form);
    const body = method === 'GET' ? undefined : {
      'application/x-www-form-urlencoded': formSchema,
      'multipart/form-data': formSchema,
      'application/json': objectOf(json),
    };
    return {
      route,
      ...(pathParameters === undefined ? {} : { pathParameters }),
      query: objectOf(query),
      ...(body === undefined ? {} : { body, bodyRequired: false }),
      responses: { 200: either(answers), '4XX': refusal, '5XX': refusal },
    };
  });

  const definitions: Record<string, JsonSchema> = {
    GraphConnection: connection({ type: 'object' }), GraphError: graphError, GraphPaging: graphPaging,
  };
  for (let pending = [...wanted]; pending.length > 0; pending = [...wanted].filter((name) => !(name in definitions))) {
    for (const name of pending) definitions[name] = definitionOf(name);
  }
  const sorted = Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b));
  return { operations, definitions: Object.fromEntries(sorted) };
}

/** The specs folder's nodes, each file read once, in the order first asked for. */
export function metaOperations(folder: string, routes: string[]): DerivedOperations {
  const read = new Map<string, MetaNode | undefined>();
  const filesRead: string[] = [];
  const nodes: MetaNodes = (name) => {
    if (read.has(name)) return read.get(name);
    const file = path.join(folder, `${name}.json`);
    let node: MetaNode | undefined;
    if (existsSync(file)) {
      node = JSON.parse(readFileSync(file, 'utf8')) as MetaNode;
      filesRead.push(file);
    }
    read.set(name, node);
    return node;
  };
  return { ...metaOperationsFrom(nodes, routes), filesRead };
}
