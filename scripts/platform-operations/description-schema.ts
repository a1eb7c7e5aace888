import type { JsonSchema } from '../../test/simulators/kit/operation-file.ts';

/**
 * Turns one schema of an OpenAPI 3.0/3.1 or Swagger 2.0 description into plain JSON Schema
 * 2020-12 without prose: descriptions, examples and vendor extensions go, 3.0's `nullable` and
 * boolean `exclusiveMinimum` become their 2020-12 forms, and every `$ref` to a named schema points
 * at `#/definitions/<name>`, the name being handed to `onReference` so the caller collects it.
 */
export interface SchemaDialect {
  /** 3.0 and Swagger write null as `nullable` / `x-nullable` and exclusive bounds as booleans. */
  legacy: boolean;
  /** The prefix of a named schema's reference: `#/components/schemas/` or `#/definitions/`. */
  namedPrefix: string;
}

const proseKeys = new Set([
  'description', 'summary', 'title', 'example', 'examples', 'externalDocs', 'xml', 'discriminator', 'deprecated',
  '$comment',
]);

type SchemaObject = Record<string, unknown>;

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Named schemas are referenced by a name that is a key of the output's definitions. */
export function definitionName(reference: string, dialect: SchemaDialect): string | null {
  if (!reference.startsWith(dialect.namedPrefix)) return null;
  return decodeURIComponent(reference.slice(dialect.namedPrefix.length)).replaceAll('~1', '/').replaceAll('~0', '~');
}

function withNull(schema: SchemaObject): SchemaObject {
  const type = schema.type;
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  if (Array.isArray(type)) {
    const types = type as unknown[];
    return types.includes('null') ? schema : { ...schema, type: [...types, 'null'] };
  }
  const enumValues = schema.enum;
  if (Array.isArray(enumValues) && !enumValues.includes(null)) {
    return { ...schema, enum: [...(enumValues as unknown[]), null] };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

function legacyBounds(schema: SchemaObject): SchemaObject {
  const out = { ...schema };
  if (typeof out.exclusiveMinimum === 'boolean') {
    if (out.exclusiveMinimum && typeof out.minimum === 'number') {
      out.exclusiveMinimum = out.minimum;
      delete out.minimum;
    } else delete out.exclusiveMinimum;
  }
  if (typeof out.exclusiveMaximum === 'boolean') {
    if (out.exclusiveMaximum && typeof out.maximum === 'number') {
      out.exclusiveMaximum = out.maximum;
      delete out.maximum;
    } else delete out.exclusiveMaximum;
  }
  return out;
}

export function plainSchema(
  input: unknown,
  dialect: SchemaDialect,
  onReference: (name: string) => void,
): JsonSchema {
  if (typeof input === 'boolean') return input;
  if (!isObject(input)) return {};
  const reference = input.$ref;
  if (typeof reference === 'string') {
    const name = definitionName(reference, dialect);
    if (name === null) throw new Error(`a reference the reader cannot follow: ${reference}`);
    onReference(name);
    const target: SchemaObject = { $ref: `#/definitions/${name}` };
    // 3.1 allows siblings beside $ref; 3.0's nullable beside it is the common one.
    return dialect.legacy && input.nullable === true ? withNull({ allOf: [target] }) : target;
  }
  let out: SchemaObject = {};
  for (const [key, value] of Object.entries(input)) {
    if (proseKeys.has(key) || key.startsWith('x-') || key === 'nullable') continue;
    if (key === 'readOnly' || key === 'writeOnly') continue;
    if (key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'definitions') {
      const members = isObject(value) ? value : {};
      out[key] = Object.fromEntries(Object.entries(members)
        .map(([name, member]) => [name, plainSchema(member, dialect, onReference)]));
    } else if (key === 'items' && Array.isArray(value)) {
      // 3.0 never writes tuple items; 3.1 writes prefixItems. An array here is Swagger's tuple form.
      out.prefixItems = value.map((member) => plainSchema(member, dialect, onReference));
    } else if (['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else',
      'unevaluatedProperties', 'unevaluatedItems', 'additionalItems'].includes(key)) {
      out[key] = typeof value === 'boolean' ? value : plainSchema(value, dialect, onReference);
    } else if (['allOf', 'anyOf', 'oneOf', 'prefixItems'].includes(key) && Array.isArray(value)) {
      out[key] = value.map((member) => plainSchema(member, dialect, onReference));
    } else if (key === 'type' && value === 'file') {
      // Swagger 2.0's form upload: the check sees a file part as a string.
      out.type = 'string';
      out.format = 'binary';
    } else {
      out[key] = value;
    }
  }
  if (dialect.legacy) out = legacyBounds(out);
  const nullable = input.nullable === true || input['x-nullable'] === true;
  return dialect.legacy && nullable ? withNull(out) : out;
}
