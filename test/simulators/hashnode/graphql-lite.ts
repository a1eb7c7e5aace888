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

/**
 * The arguments each field takes, by type and field name, each with its type as written in the
 * schema (`Int!` is required). A field absent from the map takes no arguments.
 */
export type SchemaArguments = Record<string, Record<string, Record<string, string>>>;

const invalid = (message: string) => new GraphqlFailure(message, 'GRAPHQL_VALIDATION_FAILED');

/** Refuses arguments the field does not declare and required ones left out, as graphql-js validation does. */
function checkArguments(field: FieldNode, typeName: string, declaredArgs: Record<string, string>): void {
  const unknown = Object.keys(field.args).find((name) => declaredArgs[name] === undefined);
  if (unknown !== undefined) throw invalid(`Unknown argument "${unknown}" on field "${typeName}.${field.name}".`);
  for (const [name, type] of Object.entries(declaredArgs)) {
    if (type.endsWith('!') && field.args[name] === undefined) {
      const where = `Field "${field.name}" argument "${name}" of type "${type}"`;
      throw invalid(`${where} is required, but it was not provided.`);
    }
  }
}

/**
 * Refuses unknown fields, scalars with selections, objects without, undeclared variables and,
 * when `args` is given, arguments the schema does not declare or required ones left out.
 */
export function validate(
  operation: Operation, types: SchemaTypes, scalars: ReadonlySet<string>, args?: SchemaArguments,
): void {
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
      if (args !== undefined) checkArguments(field, typeName, args[typeName]?.[field.name] ?? {});
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

/** Input object types by name, each field's type as written in the schema (`String!` is required). */
export type InputTypes = Record<string, Record<string, string>>;

const scalarChecks: Record<string, (value: unknown) => boolean> = {
  String: (value) => typeof value === 'string',
  ID: (value) => typeof value === 'string' || Number.isInteger(value),
  ObjectId: (value) => typeof value === 'string',
  DateTime: (value) => typeof value === 'string',
  Int: (value) => Number.isInteger(value),
  Boolean: (value) => typeof value === 'boolean',
};

/**
 * Checks one variable's value against its declared type before anything runs, as graphql-js
 * coerces variables: a required value left out, an input field the type does not declare, or a
 * scalar of the wrong kind is refused with BAD_USER_INPUT, naming where in the value it was.
 */
function coerce(value: unknown, type: string, inputs: InputTypes, variable: string, at: string): void {
  const refuse = (reason: string): never => {
    const where = at === variable ? '' : ` at "${at}"`;
    throw new GraphqlFailure(`Variable "$${variable}" got invalid value${where}; ${reason}`, 'BAD_USER_INPUT');
  };
  const required = type.endsWith('!');
  const inner = required ? type.slice(0, -1) : type;
  if (value === undefined || value === null) {
    if (required) refuse(`Expected non-nullable type "${type}" not to be null.`);
    return;
  }
  if (inner.startsWith('[')) {
    const item = inner.slice(1, -1);
    const items: unknown[] = Array.isArray(value) ? value : [value];
    items.forEach((entry, index) => { coerce(entry, item, inputs, variable, `${at}[${String(index)}]`); });
    return;
  }
  const fields = inputs[inner];
  if (fields === undefined) {
    const check = scalarChecks[inner];
    if (check !== undefined && !check(value)) refuse(`${inner} cannot represent value: ${JSON.stringify(value)}`);
    return;
  }
  if (typeof value !== 'object' || Array.isArray(value)) refuse(`Expected type "${inner}" to be an object.`);
  const given = value as Record<string, unknown>;
  for (const [name, fieldType] of Object.entries(fields)) {
    if (fieldType.endsWith('!') && (given[name] === undefined || given[name] === null)) {
      refuse(`Field "${name}" of required type "${fieldType}" was not provided.`);
    }
    coerce(given[name], fieldType, inputs, variable, `${at}.${name}`);
  }
  const unknown = Object.keys(given).find((name) => fields[name] === undefined);
  if (unknown !== undefined) refuse(`Field "${unknown}" is not defined by type "${inner}".`);
}

/** Refuses, before anything runs, a declared variable whose value does not fit its type (see `coerce`). */
export function coerceVariables(operation: Operation, variables: Record<string, unknown>, inputs: InputTypes): void {
  for (const declared of operation.variables) {
    const value = variables[declared.name];
    if (declared.type.endsWith('!') && (value === undefined || value === null)) {
      const message = `Variable "$${declared.name}" of required type "${declared.type}" was not provided.`;
      throw new GraphqlFailure(message, 'BAD_USER_INPUT');
    }
    coerce(value, declared.type, inputs, declared.name, declared.name);
  }
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
