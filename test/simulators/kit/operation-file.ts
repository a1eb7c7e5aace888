import { z } from 'zod';

/**
 * What a simulator is held to: the operations SPS calls on one platform, taken from the platform's
 * published description (or, where it publishes none, written from its documentation), as JSON
 * Schema 2020-12 without the description's prose. `npm run operations:derive` writes one
 * `operations.json` per platform folder from that folder's `operations.source.json`; the simulator
 * kit (operation-check.ts) reads it. Schemas stay as open as the description wrote them: the
 * check closes request objects itself, so one definition can serve a request and an answer.
 */
const jsonSchema = z.union([z.record(z.string(), z.unknown()), z.boolean()]);

export type JsonSchema = z.infer<typeof jsonSchema>;

export const describedOperation = z.object({
  /**
   * `METHOD /path/{param}` as the platform's paths write it; for a platform spoken in messages
   * rather than HTTP (message-check.ts), `WS <type>` for a message the client sends over a
   * WebSocket, its answers keyed by the message types that may follow it, or `RPC <method>` for a
   * JSON-RPC request carried inside messages, its answers keyed `result` and `error`.
   */
  route: z.string().regex(/^(?:(?:GET|POST|PUT|PATCH|DELETE) \/\S*|(?:WS|RPC) \S+)$/),
  /** Path parameters, query and form fields are checked as strings that the schema's types coerce. */
  pathParameters: jsonSchema.optional(),
  query: jsonSchema.optional(),
  /** Body schema by media type (`application/json`, `multipart/form-data`, `application/x-www-form-urlencoded`). */
  body: z.record(z.string(), jsonSchema).optional(),
  bodyRequired: z.boolean().optional(),
  /** Query parameters written as one comma-separated value (OpenAPI `style: form, explode: false`). */
  commaSeparated: z.array(z.string()).optional(),
  /** Answer schema by status (`200`, `4XX`, `default`); null where the description shows no body schema. */
  responses: z.record(z.string(), jsonSchema.nullable()),
  /** Set on operations written from documentation rather than taken from a description. */
  writtenFrom: z.string().optional(),
});

export type DescribedOperation = z.infer<typeof describedOperation>;

const descriptionFormat = z.enum([
  'openapi', 'swagger2', 'telegram', 'vk', 'meta', 'discovery', 'graphql', 'lexicon', 'wordpress', 'written',
]);

/** A further description read for the same platform, and where it came from. */
const furtherSource = z.object({
  description: z.string(),
  format: descriptionFormat,
  repository: z.string().optional(),
  commit: z.string().optional(),
  sha256: z.string().optional(),
});

export const operationSource = z.object({
  /** The description's file under the platform-specs folder, or null for written operations only. */
  description: z.string().nullable(),
  /** Which reader takes the description apart (scripts/platform-operations/description-readers.ts). */
  format: descriptionFormat,
  repository: z.string().optional(),
  commit: z.string().optional(),
  /** sha256 of the description file as read, so a changed file is seen. */
  sha256: z.string().optional(),
  /** Where the file came from when PROVENANCE.tsv does not say (a package, a module version). */
  note: z.string().optional(),
  /** The further descriptions of a platform whose API is published in several (the selection's `alsoDescribedBy`). */
  alsoDescribedBy: z.array(furtherSource).optional(),
});

export const correction = z.object({
  /**
   * Dot path into the derived document, such as `definitions.Article.properties.tags`, or its
   * segments as a list where a name holds a dot (X's `tweet.fields`).
   */
  at: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  /** The value put there; absent with `remove`. */
  set: z.unknown().optional(),
  remove: z.literal(true).optional(),
  /** Why the description is wrong here, with the evidence (the platform's documentation, its code); lines. */
  why: z.union([z.string().min(10), z.array(z.string()).min(1)]),
});

export type Correction = z.infer<typeof correction>;

/** The description's server path (OpenAPI's servers, Swagger's basePath): requests under it are read without it. */
const basePath = z.string().regex(/^\/\S*[^/]$/).optional();

export const operationFile = z.object({
  platform: z.string(),
  basePath,
  generatedBy: z.string(),
  source: operationSource,
  operations: z.array(describedOperation).min(1),
  definitions: z.record(z.string(), jsonSchema),
  corrections: z.array(correction),
});

export type OperationFile = z.infer<typeof operationFile>;

/** Each platform folder's `operations.source.json`: what to take from which description, and what to fix. */
export const operationSelection = z.object({
  platform: z.string(),
  basePath,
  description: z.string().nullable(),
  format: operationSource.shape.format,
  note: z.string().optional(),
  /**
   * Routes to take from the description, written as it writes them; Meta's codegen specs add the
   * node or edge a route is (`GET /{version}/{page-id}/feed Page.feed`: meta-operations.ts).
   */
  routes: z.array(z.string()).default([]),
  /**
   * Further descriptions with the routes taken from each, for a simulator serving a platform that
   * publishes its API in several (Google: YouTube's and Business Profile's APIs, each its own
   * document, one in another format). Their operations and definitions join the first's; a
   * definition two descriptions name differently fails the derivation.
   */
  alsoDescribedBy: z.array(z.object({
    description: z.string(),
    format: descriptionFormat,
    routes: z.array(z.string()).min(1),
  })).optional(),
  /** Operations the description lacks (its own gaps, or no description at all), with their source. */
  written: z.array(describedOperation.extend({ writtenFrom: z.string().min(5) })).default([]),
  /** Definitions the written operations share (`#/definitions/<name>`), where there is no description to hold them. */
  definitions: z.record(z.string(), jsonSchema).default({}),
  corrections: z.array(correction).default([]),
});

export type OperationSelection = z.infer<typeof operationSelection>;
