import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DescribedOperation, JsonSchema } from '../../test/simulators/kit/operation-file.ts';
import type { DerivedOperations } from './openapi-operations.ts';

/**
 * Reads the XRPC methods SPS calls out of a folder of atproto lexicons (one `<nsid>.json` each,
 * as @atproto/api bundles them) into the kit's JSON Schema operations. A selection names methods
 * by NSID; each becomes `GET /xrpc/<nsid>` (a query) or `POST /xrpc/<nsid>` (a procedure), as the
 * XRPC specification routes them:
 * - `parameters` become the query schema, `input.schema` the body under its encoding (required:
 *   a procedure with an input refuses a request without one), `output.schema` the 200 answer;
 * - every 4XX answer is the XRPC error body `{error, message}`, `error` one of the method's
 *   lexicon `errors` or a name any method may answer (the XRPC specification's generic ones, and
 *   the token errors an authenticated call may meet);
 * - definitions keep their lexicon names, `nsid` for a `main` definition and `nsid:name` for
 *   the others (`#` cannot stand in a JSON pointer the check builds).
 * The lexicon data model leaves objects open: data with fields the lexicon does not name is
 * taken, the fields ignored, and an XRPC server decodes only the parameters the lexicon names.
 * So objects and parameters are written with `additionalProperties: true`, which the check's
 * unknown-field walk respects. Unions are open unless `closed: true`: an open one also takes an
 * object whose `$type` none of its references name.
 * Lengths: a lexicon's `maxLength` counts UTF-8 bytes, which are never fewer than the characters
 * JSON Schema counts, so it is kept (a little looser); `minGraphemes` becomes `minLength` for the
 * same reason the other way round; `minLength` (bytes) and `maxGraphemes` have no safe JSON Schema
 * form and are left out, as are descriptions and `knownValues` (advisory only).
 */
type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

function stringsOf(value: unknown): string[] {
  return listOf(value).filter((entry): entry is string => typeof entry === 'string');
}

// The atproto specifications' syntax for each string format (atproto.com/specs: did, handle,
// nsid, tid, record-key, cid); datetime and uri are JSON Schema's own formats.
const didSyntax = 'did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]';
const handleSyntax = '(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const nsidSyntax = '[a-zA-Z](?:[a-zA-Z0-9-]{0,62})?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+'
  + '\\.[a-zA-Z](?:[a-zA-Z0-9]{0,62})?';
const formats: Record<string, JsonSchema> = {
  datetime: { format: 'date-time' },
  uri: { format: 'uri' },
  did: { pattern: `^${didSyntax}$` },
  handle: { pattern: `^${handleSyntax}$`, maxLength: 253 },
  'at-identifier': { pattern: `^(?:${didSyntax}|${handleSyntax})$` },
  'at-uri': { pattern: '^at://\\S+$' },
  nsid: { pattern: `^${nsidSyntax}$` },
  cid: { pattern: '^[a-zA-Z0-9+=]{8,256}$' },
  tid: { pattern: '^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$' },
  'record-key': { pattern: '^(?!\\.{1,2}$)[a-zA-Z0-9_~.:-]{1,512}$' },
  language: { pattern: '^[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*$' },
};

/**
 * Error names any XRPC method may answer: the generic ones of the XRPC specification
 * (atproto.com/specs/xrpc, "Error Responses") and the token errors of an authenticated call.
 */
export const genericXrpcErrors = [
  'InvalidRequest', 'AuthenticationRequired', 'Forbidden', 'NotFound', 'PayloadTooLarge', 'RateLimitExceeded',
  'InternalServerError', 'MethodNotImplemented', 'UpstreamFailure', 'NotEnoughResources', 'UpstreamTimeout',
  'InvalidToken', 'ExpiredToken',
];

const cidLink: JsonSchema = {
  type: 'object', required: ['$link'], properties: { $link: formats.cid ?? {} }, additionalProperties: false,
};

class LexiconFolder {
  readonly filesRead: string[] = [];
  readonly definitions: Record<string, JsonSchema> = {};
  private readonly folder: string;
  private readonly documents = new Map<string, Node>();

  constructor(folder: string) {
    this.folder = folder;
  }

  document(nsid: string): Node {
    const known = this.documents.get(nsid);
    if (known !== undefined) return known;
    const file = path.join(this.folder, `${nsid}.json`);
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!isNode(parsed) || parsed.id !== nsid || !isNode(parsed.defs)) {
      throw new Error(`${file} is not lexicon ${nsid}`);
    }
    this.filesRead.push(file);
    this.documents.set(nsid, parsed);
    return parsed;
  }

  definition(nsid: string, name: string): Node {
    const defs = this.document(nsid).defs;
    const found = isNode(defs) ? defs[name] : undefined;
    if (!isNode(found)) throw new Error(`lexicon ${nsid} has no definition ${name}`);
    return found;
  }

  /** `lex:nsid#name`, `nsid#name`, `nsid` (its main) or `#name` (in the lexicon at hand), as nsid and name. */
  private target(reference: string, within: string): [string, string] {
    const plain = reference.replace(/^lex:/, '');
    const [nsid = '', name] = plain.split('#');
    return [nsid === '' ? within : nsid, name ?? 'main'];
  }

  /** A reference's definition name, its schema written into `definitions` on first sight. */
  private reference(reference: string, within: string): string {
    const [nsid, name] = this.target(reference, within);
    const key = name === 'main' ? nsid : `${nsid}:${name}`;
    if (key in this.definitions) return key;
    this.definitions[key] = {};
    const found = this.definition(nsid, name);
    // A record's main definition is referenced for its record object (com.atproto.repo.strongRef is an object).
    const schema = found.type === 'record' ? found.record : found;
    this.definitions[key] = found.type === 'token' ? { type: 'string', const: `${nsid}#${name}` }
      : this.schema(schema, nsid);
    return key;
  }

  private union(node: Node, within: string): JsonSchema {
    const members = stringsOf(node.refs).map((reference) => {
      const [nsid, name] = this.target(reference, within);
      const type = name === 'main' ? nsid : `${nsid}#${name}`;
      return { type, schema: { $ref: `#/definitions/${this.reference(reference, within)}` } };
    });
    const branches: JsonSchema[] = members.map((member) => ({
      allOf: [member.schema, { required: ['$type'], properties: { $type: { const: member.type } } }],
    }));
    if (node.closed !== true) {
      // An object of a kind the union does not name is taken as it is: the lexicon may have grown.
      branches.push({ properties: { $type: { not: { enum: members.map((member) => member.type) } } } });
    }
    return { type: 'object', required: ['$type'], properties: { $type: { type: 'string' } }, anyOf: branches };
  }

  private object(node: Node, within: string): JsonSchema {
    const nullable = new Set(stringsOf(node.nullable));
    const properties = Object.fromEntries(Object.entries(isNode(node.properties) ? node.properties : {})
      .map(([name, member]) => {
        const schema = this.schema(member, within);
        return [name, nullable.has(name) ? { anyOf: [schema, { type: 'null' }] } : schema];
      }));
    const required = stringsOf(node.required);
    return {
      type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: true,
    };
  }

  private string(node: Node): JsonSchema {
    const out: Node = { type: 'string' };
    const format = typeof node.format === 'string' ? formats[node.format] : undefined;
    if (typeof node.format === 'string' && format === undefined) throw new Error(`unknown format ${node.format}`);
    Object.assign(out, format);
    if (typeof node.maxLength === 'number') out.maxLength = node.maxLength;
    if (typeof node.minGraphemes === 'number') out.minLength = node.minGraphemes;
    for (const key of ['enum', 'const', 'default']) if (node[key] !== undefined) out[key] = node[key];
    return out;
  }

  schema(input: unknown, within: string): JsonSchema {
    if (!isNode(input)) return {};
    const copy = (type: string, keys: string[]): JsonSchema => {
      const kept: [string, unknown][] = keys.filter((key) => input[key] !== undefined).map((key) => [key, input[key]]);
      return Object.fromEntries([['type', type], ...kept]);
    };
    switch (input.type) {
      case 'object':
      case 'params':
        return this.object(input, within);
      case 'string':
        return this.string(input);
      case 'integer':
        return copy('integer', ['minimum', 'maximum', 'enum', 'const', 'default']);
      case 'boolean':
        return copy('boolean', ['const', 'default']);
      case 'null':
        return { type: 'null' };
      case 'array': {
        const out: Node = { type: 'array', items: this.schema(input.items, within) };
        if (typeof input.minLength === 'number') out.minItems = input.minLength;
        if (typeof input.maxLength === 'number') out.maxItems = input.maxLength;
        return out;
      }
      case 'ref':
        return { $ref: `#/definitions/${this.reference(String(input.ref), within)}` };
      case 'union':
        return this.union(input, within);
      case 'unknown':
        // The data model's "unknown": any object, never a bare value.
        return { type: 'object' };
      case 'cid-link':
        return cidLink;
      case 'bytes':
        return {
          type: 'object', required: ['$bytes'], properties: { $bytes: { type: 'string' } }, additionalProperties: false,
        };
      case 'blob':
        return { $ref: `#/definitions/${this.blob()}` };
      default:
        throw new Error(`a lexicon type the reader does not know: ${String(input.type)}`);
    }
  }

  /** The data model's blob: `{$type: "blob", ref, mimeType, size}`, or the legacy `{cid, mimeType}`. */
  private blob(): string {
    this.definitions.blob = {
      anyOf: [
        {
          type: 'object',
          required: ['$type', 'ref', 'mimeType', 'size'],
          properties: {
            $type: { const: 'blob' }, ref: cidLink, mimeType: { type: 'string' }, size: { type: 'integer' },
          },
        },
        {
          type: 'object',
          required: ['cid', 'mimeType'],
          properties: { cid: formats.cid ?? {}, mimeType: { type: 'string' } },
        },
      ],
    };
    return 'blob';
  }
}

function errorBody(names: string[]): JsonSchema {
  return {
    type: 'object',
    required: ['error'],
    properties: { error: { enum: [...new Set([...names, ...genericXrpcErrors])] }, message: { type: 'string' } },
    additionalProperties: false,
  };
}

function operation(folder: LexiconFolder, nsid: string): DescribedOperation {
  const main = folder.definition(nsid, 'main');
  if (main.type !== 'query' && main.type !== 'procedure') throw new Error(`${nsid} is a ${String(main.type)}`);
  const described: DescribedOperation = {
    route: `${main.type === 'query' ? 'GET' : 'POST'} /xrpc/${nsid}`,
    responses: {},
  };
  if (isNode(main.parameters)) described.query = folder.schema(main.parameters, nsid);
  const input = main.input;
  if (isNode(input) && typeof input.encoding === 'string') {
    described.body = { [input.encoding]: isNode(input.schema) ? folder.schema(input.schema, nsid) : {} };
    described.bodyRequired = true;
  }
  const output = main.output;
  const json = isNode(output) && output.encoding === 'application/json';
  described.responses['200'] = json && isNode(output.schema) ? folder.schema(output.schema, nsid) : null;
  const errors = listOf(main.errors).map((error) => (isNode(error) ? String(error.name) : ''));
  described.responses['4XX'] = errorBody(errors.filter((name) => name !== ''));
  return described;
}

export function lexiconOperations(folder: string, routes: string[]): DerivedOperations {
  const lexicons = new LexiconFolder(folder);
  const operations = routes.map((nsid) => operation(lexicons, nsid));
  const definitions = Object.fromEntries(Object.entries(lexicons.definitions).sort(([a], [b]) => a.localeCompare(b)));
  return { operations, definitions, filesRead: lexicons.filesRead };
}
