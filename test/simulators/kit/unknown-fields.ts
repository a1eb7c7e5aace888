import type { JsonSchema } from './operation-file.ts';

/**
 * The fields of a request that its schema does not name: a misspelled field passes a JSON Schema
 * that leaves objects open (most published descriptions do), yet the platform ignores or refuses
 * it. Walked beside the data instead of closing the schema (`unevaluatedProperties: false`),
 * because a closed definition would also refuse the fields its `allOf` siblings add. The names
 * of every branch (`allOf`, `anyOf`, `oneOf`, `$ref`) count as known: lenient where the
 * description is ambiguous, strict where it lists the fields.
 */
type SchemaNode = Record<string, unknown>;

interface Shape {
  /** Names some branch lists. */
  known: Map<string, JsonSchema[]>;
  /** A branch allows any other name (additionalProperties, patternProperties, or no properties at all). */
  open: boolean;
  /** Schemas of array items, gathered from every branch. */
  items: JsonSchema[];
}

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class UnknownFields {
  private readonly definitions: Record<string, JsonSchema>;

  constructor(definitions: Record<string, JsonSchema>) {
    this.definitions = definitions;
  }

  private resolve(schema: JsonSchema, seen: Set<string>): SchemaNode[] {
    if (!isNode(schema)) return [];
    const reference = schema.$ref;
    if (typeof reference === 'string') {
      const name = reference.replace(/^#\/definitions\//, '');
      if (seen.has(name)) return [];
      const target = this.definitions[name];
      return target === undefined ? [] : this.resolve(target, new Set([...seen, name]));
    }
    const branches = ['allOf', 'anyOf', 'oneOf'].flatMap((key) => {
      const list = schema[key];
      return Array.isArray(list) ? list.flatMap((member) => this.resolve(member as JsonSchema, seen)) : [];
    });
    return [schema, ...branches];
  }

  private shape(schema: JsonSchema): Shape {
    const shape: Shape = { known: new Map(), open: false, items: [] };
    const nodes = this.resolve(schema, new Set());
    let listsProperties = false;
    for (const node of nodes) {
      if (isNode(node.properties)) {
        listsProperties = true;
        for (const [name, member] of Object.entries(node.properties)) {
          shape.known.set(name, [...(shape.known.get(name) ?? []), member as JsonSchema]);
        }
      }
      const additional = node.additionalProperties;
      const allowsOthers = additional !== undefined && additional !== false;
      if (allowsOthers || node.patternProperties !== undefined) shape.open = true;
      if (node.items !== undefined && typeof node.items !== 'boolean') shape.items.push(node.items as JsonSchema);
    }
    if (!listsProperties) shape.open = true;
    return shape;
  }

  /** Dotted paths (`article.tilte`, `media.0.alt`) of the fields no branch names. */
  find(schema: JsonSchema, data: unknown, at = ''): string[] {
    if (Array.isArray(data)) {
      const { items } = this.shape(schema);
      if (items.length === 0) return [];
      return data.flatMap((entry, index) => this.findAmong(items, entry, `${at}${String(index)}.`));
    }
    if (!isNode(data)) return [];
    const shape = this.shape(schema);
    return Object.entries(data).flatMap(([name, value]) => {
      const members = shape.known.get(name);
      if (members === undefined) return shape.open ? [] : [`${at}${name}`];
      return this.findAmong(members, value, `${at}${name}.`);
    });
  }

  /** A value several branches describe is unknown only where every one of them finds it so. */
  private findAmong(schemas: JsonSchema[], data: unknown, at: string): string[] {
    const verdicts = schemas.map((schema) => this.find(schema, data, at));
    return verdicts.reduce((common, next) => common.filter((field) => next.includes(field)));
  }
}
