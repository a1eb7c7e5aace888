import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../middleware/idempotency.ts';
import type { RouteDefinition } from '../public/route-definition.ts';
import { toolCatalog, type ToolSpec } from './tool-catalog.ts';

type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

/** A tool joined to its route: the route's schemas are the tool's, both as zod and as JSON Schema. */
export interface BoundTool {
  spec: ToolSpec;
  route: RouteDefinition;
  /** The route's params, query and body properties side by side: the tool's arguments. */
  input: z.ZodObject;
  inputJsonSchema: JsonSchemaObject;
  outputJsonSchema: JsonSchemaObject;
}

/** A request's three parts, as the route's own schemas parse them. */
export interface RouteArguments {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  /** Undefined for a route without a body. */
  body: Record<string, unknown> | undefined;
}

function shapeOf(schema: z.ZodType | undefined, what: string): z.ZodRawShape {
  if (schema === undefined) return {};
  if (!(schema instanceof z.ZodObject)) throw new Error(`${what} is not an object schema: it cannot be tool arguments`);
  return schema.shape;
}

function jsonSchemaOf(schema: z.ZodType, what: string): JsonSchemaObject {
  // The SDK's own converter writes draft-07 (what its client's validator reads). Input mode for the
  // output too: an answer is described, not parsed, so a field the schema leaves out is not an error.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-7', io: 'input', unrepresentable: 'any',
  });
  if (rest.type !== 'object') throw new Error(`${what} is not a JSON object schema, as MCP wants`);
  return { ...rest, type: 'object' };
}

function bindTool(spec: ToolSpec, routes: readonly RouteDefinition[]): BoundTool {
  const route = routes.find((candidate) =>
    candidate.method === spec.route.method && candidate.path === spec.route.path);
  const call = `${spec.route.method.toUpperCase()} ${spec.route.path}`;
  if (route === undefined) throw new Error(`tool ${spec.name} names ${call}, which is not a public route`);
  const parts = [
    shapeOf(route.params, `${call} params`), shapeOf(route.query, `${call} query`), shapeOf(route.body, `${call} body`),
  ];
  const names = parts.flatMap((shape) => Object.keys(shape));
  if (new Set(names).size !== names.length) throw new Error(`${call} uses one name in two places: no tool can take it`);
  const input = z.object(Object.assign({}, ...parts) as z.ZodRawShape);
  const output = spec.wrap === undefined ? route.response : z.object({ [spec.wrap]: route.response });
  return {
    spec, route, input,
    inputJsonSchema: jsonSchemaOf(input, `${spec.name} input`),
    outputJsonSchema: jsonSchemaOf(output, `${spec.name} output`),
  };
}

/** Every catalogued tool bound to its route; a tool naming a missing route stops the process at start. */
export function bindTools(routes: readonly RouteDefinition[], catalog: readonly ToolSpec[] = toolCatalog): BoundTool[] {
  return catalog.map((spec) => bindTool(spec, routes));
}

function pick(args: Record<string, unknown>, schema: z.ZodType | undefined): Record<string, unknown> {
  const shape = shapeOf(schema, 'schema');
  return Object.fromEntries(Object.keys(shape).filter((name) => args[name] !== undefined)
    .map((name) => [name, args[name]]));
}

/** The tool's arguments sorted into the route's path parameters, query and body; unknown names are dropped. */
export function routeArguments(tool: BoundTool, args: Record<string, unknown>): RouteArguments {
  return {
    params: pick(args, tool.route.params),
    query: { ...tool.spec.defaultQuery, ...pick(args, tool.route.query) },
    body: tool.route.body === undefined ? undefined : pick(args, tool.route.body),
  };
}

/** The route's path with its `:name` parameters filled in, each encoded as one segment. */
export function concretePath(path: string, params: Record<string, unknown>): string {
  return path.replace(/:(\w+)/g, (_match, name: string) => {
    const value = params[name];
    // Every route's path parameters are strings (their schemas say so); anything else is left empty.
    return typeof value === 'string' ? encodeURIComponent(value) : '';
  });
}

/**
 * The Idempotency-Key of a call of a `keyedByArguments` tool: a digest of what the route receives,
 * so the same call (arguments in any order, unknown ones ignored) always has the same key.
 */
export function argumentsKey(tool: BoundTool, args: RouteArguments): string {
  const called = canonicalJson({ ...args, body: args.body ?? null });
  const digest = createHash('sha256').update(`${tool.spec.name}\n${called}`).digest('hex');
  return `mcp-${digest}`;
}

/** The route's answer (as JSON, the way HTTP sends it) as the tool's structured output. */
export function structuredAnswer(tool: BoundTool, answer: unknown): Record<string, unknown> {
  const json: unknown = answer === undefined ? null : JSON.parse(JSON.stringify(answer));
  if (tool.spec.wrap !== undefined) return { [tool.spec.wrap]: json };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new Error(`${tool.spec.name} answered something other than an object: it needs a wrap key`);
  }
  return json as Record<string, unknown>;
}
