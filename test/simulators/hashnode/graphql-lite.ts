/**
 * Just enough GraphQL for a simulator to read what a client sends and answer like a GraphQL
 * server: one operation (`query`/`mutation`, optional name and variable definitions), fields
 * with aliases, arguments (variables, strings, numbers, booleans, null, enums, lists, objects)
 * and nested selections. Fragments and directives are not read. Validation is against a map of
 * type names to fields, so an unknown field or a missing selection is refused before anything
 * is executed, as a real server refuses it before running a mutation.
 */

export type ValueNode =
  | { kind: 'variable'; name: string }
  | { kind: 'literal'; value: string | number | boolean | null }
  | { kind: 'enum'; value: string }
  | { kind: 'list'; items: ValueNode[] }
  | { kind: 'object'; fields: Record<string, ValueNode> };

export interface FieldNode {
  alias: string | null;
  name: string;
  args: Record<string, ValueNode>;
  selections: FieldNode[] | null;
}

export interface Operation {
  type: 'query' | 'mutation';
  variables: { name: string; type: string }[];
  selections: FieldNode[];
}

export class GraphqlFailure extends Error {
  readonly code: string;

  constructor(message: string, code: string) {
    super(message);
    this.code = code;
  }
}

const syntax = (message: string) => new GraphqlFailure(`Syntax Error: ${message}`, 'GRAPHQL_PARSE_FAILED');

const punctuators = new Set(['{', '}', '(', ')', ':', '$', '!', '[', ']', '=']);

function tokenize(source: string): string[] {
  const tokens: string[] = [];
  const pattern = /\s+|,|#[^\n]*|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|[_A-Za-z]\w*|\.\.\.|[{}():$![\]=@]/y;
  let at = 0;
  while (at < source.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(source);
    if (match === null) throw syntax(`Unexpected character "${source[at] ?? ''}".`);
    const token = match[0];
    at += token.length;
    if (/^\s*$|^,$|^#/.test(token)) continue;
    if (token === '...' || token === '@') {
      throw syntax('fragments and directives are not read by the simulator.');
    }
    tokens.push(token);
  }
  return tokens;
}

class Parser {
  private at = 0;
  private readonly tokens: string[];

  constructor(tokens: string[]) {
    this.tokens = tokens;
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }

  private next(): string {
    const token = this.tokens[this.at];
    if (token === undefined) throw syntax('Expected Name, found <EOF>.');
    this.at += 1;
    return token;
  }

  private expect(token: string): void {
    const found = this.next();
    if (found !== token) throw syntax(`Expected "${token}", found "${found}".`);
  }

  private name(): string {
    const token = this.next();
    if (!/^[_A-Za-z]\w*$/.test(token)) {
      throw syntax(`Expected Name, found "${token}".`);
    }
    return token;
  }

  operation(): Operation {
    let type: Operation['type'] = 'query';
    const variables: Operation['variables'] = [];
    const first = this.peek();
    if (first === 'query' || first === 'mutation') {
      type = first;
      this.next();
      if (this.peek() !== '{' && this.peek() !== '(') this.name();
      if (this.peek() === '(') {
        this.next();
        while (this.peek() !== ')') {
          this.expect('$');
          const name = this.name();
          this.expect(':');
          variables.push({ name, type: this.typeReference() });
          if (this.peek() === '=') throw syntax('defaults are not read.');
        }
        this.next();
      }
    }
    const selections = this.selectionSet();
    if (this.peek() !== undefined) {
      throw syntax('one operation per request.');
    }
    return { type, variables, selections };
  }

  private typeReference(): string {
    if (this.peek() === '[') {
      this.next();
      const inner = this.typeReference();
      this.expect(']');
      return `[${inner}]${this.bang()}`;
    }
    return `${this.name()}${this.bang()}`;
  }

  private bang(): string {
    if (this.peek() !== '!') return '';
    this.next();
    return '!';
  }

  private selectionSet(): FieldNode[] {
    this.expect('{');
    const fields: FieldNode[] = [];
    while (this.peek() !== '}') fields.push(this.field());
    this.next();
    if (fields.length === 0) throw syntax('Expected Name, found "}".');
    return fields;
  }

  private field(): FieldNode {
    let alias: string | null = null;
    let name = this.name();
    if (this.peek() === ':') {
      this.next();
      alias = name;
      name = this.name();
    }
    const args: Record<string, ValueNode> = {};
    if (this.peek() === '(') {
      this.next();
      while (this.peek() !== ')') {
        const argument = this.name();
        this.expect(':');
        args[argument] = this.value();
      }
      this.next();
    }
    const selections = this.peek() === '{' ? this.selectionSet() : null;
    return { alias, name, args, selections };
  }

  private value(): ValueNode {
    const token = this.next();
    if (token === '$') return { kind: 'variable', name: this.name() };
    if (token === '[') {
      const items: ValueNode[] = [];
      while (this.peek() !== ']') items.push(this.value());
      this.next();
      return { kind: 'list', items };
    }
    if (token === '{') {
      const fields: Record<string, ValueNode> = {};
      while (this.peek() !== '}') {
        const key = this.name();
        this.expect(':');
        fields[key] = this.value();
      }
      this.next();
      return { kind: 'object', fields };
    }
    if (token.startsWith('"')) return { kind: 'literal', value: JSON.parse(token) as string };
    if (/^-?\d/.test(token)) return { kind: 'literal', value: Number(token) };
    if (token === 'true' || token === 'false') return { kind: 'literal', value: token === 'true' };
    if (token === 'null') return { kind: 'literal', value: null };
    if (punctuators.has(token)) throw syntax(`Unexpected "${token}".`);
    return { kind: 'enum', value: token };
  }
}

export function parseOperation(source: string): Operation {
  return new Parser(tokenize(source)).operation();
}

/** Object types by name, each field's type name (scalars and objects alike; lists are not marked). */
export type SchemaTypes = Record<string, Record<string, string>>;

/** Refuses unknown fields, scalars with selections, objects without, and undeclared variables. */
export function validate(operation: Operation, types: SchemaTypes, scalars: ReadonlySet<string>): void {
  const declared = new Set(operation.variables.map((variable) => variable.name));
  const checkValue = (value: ValueNode): void => {
    if (value.kind === 'variable' && !declared.has(value.name)) {
      throw new GraphqlFailure(`Variable "$${value.name}" is not defined.`, 'GRAPHQL_VALIDATION_FAILED');
    }
    if (value.kind === 'list') value.items.forEach(checkValue);
    if (value.kind === 'object') Object.values(value.fields).forEach(checkValue);
  };
  const walk = (fields: FieldNode[], typeName: string): void => {
    const type = types[typeName] ?? {};
    for (const field of fields) {
      Object.values(field.args).forEach(checkValue);
      const fieldType = type[field.name];
      if (fieldType === undefined) {
        const message = `Cannot query field "${field.name}" on type "${typeName}".`;
        throw new GraphqlFailure(message, 'GRAPHQL_VALIDATION_FAILED');
      }
      const scalar = scalars.has(fieldType);
      if (scalar && field.selections !== null) {
        const message = `Field "${field.name}" must not have a selection since type "${fieldType}" has no subfields.`;
        throw new GraphqlFailure(message, 'GRAPHQL_VALIDATION_FAILED');
      }
      if (!scalar && field.selections === null) {
        const message = `Field "${field.name}" of type "${fieldType}" must have a selection of subfields.`;
        throw new GraphqlFailure(message, 'GRAPHQL_VALIDATION_FAILED');
      }
      if (field.selections !== null) walk(field.selections, fieldType);
    }
  };
  walk(operation.selections, operation.type === 'query' ? 'Query' : 'Mutation');
}

/** An argument's value with the request's variables in place. */
export function valueOf(node: ValueNode, variables: Record<string, unknown>): unknown {
  switch (node.kind) {
    case 'variable': return variables[node.name] ?? null;
    case 'literal': return node.value;
    case 'enum': return node.value;
    case 'list': return node.items.map((item) => valueOf(item, variables));
    case 'object':
      return Object.fromEntries(Object.entries(node.fields).map(([key, value]) => [key, valueOf(value, variables)]));
  }
}

/**
 * A resolved value: a scalar, null, an object whose fields are values or functions of the
 * field's arguments (which may throw a GraphqlFailure, as a resolver does), or a list of those.
 */
export type Resolved = unknown;
export type FieldResolver = (args: Record<string, unknown>) => Resolved;

/** Runs a validated selection on a resolved root, as a GraphQL server shapes its `data`. */
export function execute(fields: FieldNode[], root: Resolved, variables: Record<string, unknown>): unknown {
  if (root === null || root === undefined) return null;
  if (Array.isArray(root)) return root.map((item: unknown) => execute(fields, item, variables));
  const source = root as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const args = Object.fromEntries(Object.entries(field.args)
      .map(([key, value]) => [key, valueOf(value, variables)]));
    const raw = source[field.name];
    const value = typeof raw === 'function' ? (raw as FieldResolver)(args) : raw;
    const shaped = field.selections === null ? value ?? null : execute(field.selections, value, variables);
    out[field.alias ?? field.name] = shaped;
  }
  return out;
}
