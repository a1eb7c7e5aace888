import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonSchema } from '../../test/simulators/kit/operation-file.ts';

/**
 * The WordPress REST API's answer schemas as johnbillion/wp-json-schemas publishes them: one
 * JSON Schema (draft-07 hyper-schema) per file under schemas/rest-api/, referring to each other by
 * relative file (`properties/object-links.json`, `../properties/user-caps.json`,
 * `../../schema.json#/definitions/EmptyArray`). A referenced file becomes a definition named by
 * its `title` (`WP_REST_API_User`), a `#/definitions/<name>` fragment one named `<name>`; any other
 * fragment (`user.json#/properties/id`) is copied in place. Prose and the hyper-schema's `links`
 * are left out, as are the TypeScript generator's hints (tsType, tsEnumNames).
 */
type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const droppedKeys = new Set([
  '$schema', '$id', 'title', 'description', 'links', 'tsType', 'tsEnumNames', 'readOnly', 'contentMediaType',
  'example', 'examples', 'context', 'definitions',
]);

const nestedKeys = new Set(['items', 'additionalProperties', 'propertyNames', 'not', 'contains', 'additionalItems']);

export interface WordpressAnswerSchemas {
  /** Definitions met so far, by name, sorted. */
  readonly definitions: Record<string, JsonSchema>;
  /** The definition name of a file of the rest-api folder (`user.json`), read on first use. */
  reference(file: string): string;
}

export function wordpressAnswerSchemas(folder: string, filesRead: string[]): WordpressAnswerSchemas {
  const definitions: Record<string, JsonSchema> = {};
  const namedFiles = new Map<string, string>();
  const documents = new Map<string, Node>();

  function documentAt(file: string): Node {
    const known = documents.get(file);
    if (known !== undefined) return known;
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (!isNode(parsed)) throw new Error(`${file} holds no schema`);
    filesRead.push(file);
    documents.set(file, parsed);
    return parsed;
  }

  function pointer(document: Node, fragment: string, file: string): unknown {
    let at: unknown = document;
    for (const key of fragment.split('/').filter((segment) => segment !== '')) at = isNode(at) ? at[key] : undefined;
    if (at === undefined) throw new Error(`${file}#${fragment} points at nothing`);
    return at;
  }

  function define(name: string, file: string, make: () => JsonSchema): string {
    const key = `${file}#${name}`;
    const known = namedFiles.get(key);
    if (known !== undefined) return known;
    if (name in definitions) throw new Error(`two schemas are named ${name}`);
    namedFiles.set(key, name);
    definitions[name] = {};
    definitions[name] = make();
    return name;
  }

  function resolve(reference: string, from: string): JsonSchema {
    const [relative = '', fragment] = reference.split('#');
    const file = relative === '' ? from : path.resolve(path.dirname(from), relative);
    const document = documentAt(file);
    const named = fragment === undefined || fragment === '' ? null : /^\/definitions\/([^/]+)$/.exec(fragment)?.[1];
    if (fragment !== undefined && fragment !== '' && named === undefined) {
      return convert(pointer(document, fragment, file), file);
    }
    const name = named ?? (typeof document.title === 'string' ? document.title : path.basename(file, '.json'));
    const target = named === null ? document : pointer(document, fragment ?? '', file);
    return { $ref: `#/definitions/${define(name, file, () => convert(target, file))}` };
  }

  function convert(input: unknown, file: string): JsonSchema {
    if (typeof input === 'boolean') return input;
    if (!isNode(input)) return {};
    if (typeof input.$ref === 'string') return resolve(input.$ref, file);
    const out: Node = {};
    for (const [key, value] of Object.entries(input)) {
      if (droppedKeys.has(key)) continue;
      if (key === 'properties' || key === 'patternProperties') {
        const members = isNode(value) ? value : {};
        out[key] = Object.fromEntries(Object.entries(members).map(([name, member]) => [name, convert(member, file)]));
      } else if (nestedKeys.has(key)) {
        out[key] = convert(value, file);
      } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
        out[key] = value.map((member) => convert(member, file));
      } else {
        out[key] = value;
      }
    }
    return out;
  }

  return {
    get definitions() {
      return Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => a.localeCompare(b)));
    },
    reference(file: string): string {
      const schema = resolve(file, path.join(folder, 'index.json'));
      if (!isNode(schema) || typeof schema.$ref !== 'string') throw new Error(`${file} is no named schema`);
      return schema.$ref.replace('#/definitions/', '');
    },
  };
}
