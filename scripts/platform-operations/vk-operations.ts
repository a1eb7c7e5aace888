import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DescribedOperation, JsonSchema } from '../../test/simulators/kit/operation-file.ts';
import type { DerivedOperations } from './openapi-operations.ts';

/**
 * Reads the API methods SPS calls out of VKCOM/vk-api-schema, a folder of JSON Schema files:
 * `<section>/methods.json` (each method's parameters, responses and errors), `<section>/objects.json`
 * and `<section>/responses.json` (definitions, referenced across files as
 * `../wall/objects.json#/definitions/wall_wallpost_full`) and `errors.json` (error codes). Each method
 * becomes `POST /method/<name>` with its parameters as form fields (or `GET` with them in the query),
 * as api.vk.com takes them (dev.vk.com, "API requests"):
 * - `access_token` and `v`, which every call carries, join each method's own parameters; VK refuses
 *   a call without `v` (error 8);
 * - a boolean parameter is a flag VK reads as 1 or 0 (or true/false); a list is one comma-separated
 *   value (`commaSeparated`);
 * - the answer is HTTP 200 either way: `{response}` (the method's response definitions) as `200`,
 *   a refusal `{error: {error_code, error_msg, ...}}` as `default`, its code one of the global
 *   codes or the method's own (errors.json);
 * - definitions keep their names (already prefixed by their section, `wall_wallpost_full`); a name
 *   two files define gets its section and file in front. The schemas are draft-07 with the older
 *   `required: true` on a property, which becomes its object's `required` list; prose
 *   (description, enumNames, entity) is left out.
 * `filesRead` lists the files read, in the order first read, so the derivation fingerprints them.
 */
type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

const proseKeys = new Set([
  'description', 'enumNames', 'entity', 'title', '$schema', 'discriminator', 'deprecated_from_version', 'version',
  'termsOfService', 'extends',
]);

/** Formats the check can use: int32/int64 as annotations, uri checked; json, hex and value_object check nothing. */
const keptFormats = new Set(['int32', 'int64', 'uri']);

const nestedKeys = new Set(['items', 'additionalProperties', 'not', 'contains', 'propertyNames']);

/** A VK flag: 1 or 0 as its documentation writes them, or true/false. */
const flag: JsonSchema = { anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }] };

const common: Record<string, JsonSchema> = { access_token: { type: 'string' }, v: { type: 'string' } };

class VkSchemaFolder {
  readonly filesRead: string[] = [];
  readonly definitions: Record<string, JsonSchema> = {};
  private readonly root: string;
  private readonly documents = new Map<string, Node>();
  /** `file#name` → the definition's name in the output. */
  private readonly names = new Map<string, string>();
  private readonly pending: { file: string; name: string; unique: string }[] = [];

  constructor(root: string) {
    this.root = root;
  }

  document(file: string): Node {
    const known = this.documents.get(file);
    if (known !== undefined) return known;
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!isNode(parsed)) throw new Error(`${file} holds no JSON object`);
    this.documents.set(file, parsed);
    this.filesRead.push(file);
    return parsed;
  }

  file(relative: string): string {
    return path.join(this.root, relative);
  }

  /** A `$ref` as the output's `#/definitions/<name>`, the definition queued for conversion. */
  reference(ref: string, from: string): JsonSchema {
    const [target = '', pointer = ''] = ref.split('#');
    const file = target === '' ? from : path.resolve(path.dirname(from), target);
    const name = /^\/definitions\/([^/]+)$/.exec(pointer)?.[1];
    if (name === undefined) throw new Error(`a reference the reader cannot follow: ${ref} (in ${from})`);
    const key = `${file}#${name}`;
    const known = this.names.get(key);
    if (known !== undefined) return { $ref: `#/definitions/${known}` };
    const definitions = this.document(file).definitions;
    if (!isNode(definitions) || !(name in definitions)) throw new Error(`${ref} (in ${from}) names no definition`);
    const taken = new Set(this.names.values());
    const qualified = `${path.basename(path.dirname(file))}_${path.basename(file, '.json')}_${name}`;
    const unique = taken.has(name) ? qualified : name;
    this.names.set(key, unique);
    this.pending.push({ file, name, unique });
    return { $ref: `#/definitions/${unique}` };
  }

  /** One schema of `file` as JSON Schema 2020-12 without prose. */
  schema(input: unknown, file: string): JsonSchema {
    if (typeof input === 'boolean') return input;
    if (!isNode(input)) return {};
    // Draft-07 ignores a $ref's siblings (its `type`, its `required: true`, read by the parent).
    if (typeof input.$ref === 'string') return this.reference(input.$ref, file);
    const out: Node = {};
    const required = Array.isArray(input.required) ? input.required.filter((name) => typeof name === 'string') : [];
    for (const [key, value] of Object.entries(input)) {
      if (proseKeys.has(key) || key === 'required') continue;
      if ((key === 'properties' || key === 'patternProperties') && isNode(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, member]) => {
          if (key === 'properties' && isNode(member) && member.required === true) required.push(name);
          return [name, this.schema(member, file)];
        }));
      } else if (key === 'items' && Array.isArray(value)) {
        out.prefixItems = value.map((member) => this.schema(member, file));
      } else if (nestedKeys.has(key)) {
        out[key] = typeof value === 'boolean' ? value : this.schema(value, file);
      } else if ((key === 'allOf' || key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
        out[key] = value.map((member) => this.schema(member, file));
      } else if (key === 'format') {
        if (typeof value === 'string' && keptFormats.has(value)) out.format = value;
      } else {
        out[key] = value;
      }
    }
    if (required.length > 0) out.required = [...new Set(required)];
    return out;
  }

  /** Converts every definition reached, and those they reach in turn. */
  drain(): void {
    for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) {
      const definitions = this.document(next.file).definitions;
      this.definitions[next.unique] = this.schema(isNode(definitions) ? definitions[next.name] : undefined, next.file);
    }
  }
}

interface Parameter {
  name: string;
  schema: JsonSchema;
  required: boolean;
  list: boolean;
}

function parameterOf(folder: VkSchemaFolder, input: unknown, file: string): Parameter {
  if (!isNode(input) || typeof input.name !== 'string') throw new Error(`a parameter without a name in ${file}`);
  const { name, required, ...rest } = input;
  return {
    name,
    schema: rest.type === 'boolean' ? flag : folder.schema(rest, file),
    required: required === true,
    list: rest.type === 'array',
  };
}

const routeForm = /^(GET|POST) \/method\/([a-zA-Z]+)\.([a-zA-Z]+)$/;

export function vkOperations(root: string, routes: string[]): DerivedOperations {
  const folder = new VkSchemaFolder(root);
  const errorsFile = folder.file('errors.json');
  const errorCodes = (refs: unknown[]): number[] => {
    const errors = folder.document(errorsFile).errors;
    const table = isNode(errors) ? errors : {};
    const global = Object.values(table).filter((entry) => isNode(entry) && entry.global === true);
    const own = refs.map((ref) => {
      const name = isNode(ref) && typeof ref.$ref === 'string' ? ref.$ref.split('/').pop() ?? '' : '';
      const entry = table[name];
      if (!isNode(entry)) throw new Error(`an error the description does not define: ${JSON.stringify(ref)}`);
      return entry;
    });
    const codes = [...global, ...own].map((entry) => (isNode(entry) ? entry.code : undefined))
      .filter((code): code is number => typeof code === 'number');
    return [...new Set(codes)].sort((a, b) => a - b);
  };

  const operations = routes.map((route): DescribedOperation => {
    const parts = routeForm.exec(route);
    if (parts === null) throw new Error(`${route} is not a VK API route (GET|POST /method/<section>.<name>)`);
    const [, verb = '', section = '', short = ''] = parts;
    const name = `${section}.${short}`;
    const file = folder.file(path.join(section, 'methods.json'));
    const listed = folder.document(file).methods;
    const method = listOf(listed).find((entry) => isNode(entry) && entry.name === name);
    if (!isNode(method)) throw new Error(`${route} is not in the description (${section}/methods.json)`);
    const parameters = listOf(method.parameters).map((entry) => parameterOf(folder, entry, file));
    const fields: JsonSchema = {
      type: 'object',
      properties: { ...Object.fromEntries(parameters.map((entry) => [entry.name, entry.schema])), ...common },
      required: [...parameters.filter((entry) => entry.required).map((entry) => entry.name), 'v'],
    };
    const answers = isNode(method.responses) ? method.responses : {};
    const success = [
      ...Object.entries(answers).filter(([key]) => /^([a-zA-Z0-9_]+)?[rR]esponse$/.test(key)).map(([, value]) => value),
      ...listOf(answers.oneOf),
    ].map((answer) => folder.schema(answer, file));
    const lists = parameters.filter((entry) => entry.list).map((entry) => entry.name);
    const codes = errorCodes(listOf(method.errors));
    const error = folder.reference('../base/objects.json#/definitions/base_error', file);
    return {
      route,
      ...(verb === 'GET'
        ? { query: fields }
        : { body: { 'application/x-www-form-urlencoded': fields }, bodyRequired: true }),
      ...(lists.length > 0 ? { commaSeparated: lists } : {}),
      responses: {
        200: success.length === 1 ? success[0] ?? {} : { anyOf: success },
        // VK refuses with HTTP 200 too: whoever checks an answer takes an `{error}` body to this one.
        default: {
          type: 'object',
          required: ['error'],
          properties: { error: { allOf: [error, { properties: { error_code: { enum: codes } } }] } },
        },
      },
    };
  });
  folder.drain();
  const sorted = Object.entries(folder.definitions).sort(([a], [b]) => a.localeCompare(b));
  return { operations, definitions: Object.fromEntries(sorted), filesRead: folder.filesRead };
}
