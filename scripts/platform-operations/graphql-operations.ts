import { readFileSync } from 'node:fs';
import {
  buildSchema, getNamedType, isEnumType, isInputObjectType, isObjectType, isRequiredArgument,
  isRequiredInputField, isScalarType, isSpecifiedScalarType, type GraphQLField, type GraphQLInputField,
  type GraphQLInputType, type GraphQLOutputType, type GraphQLSchema,
} from 'graphql';
import type { GraphqlDefinition } from '../../test/simulators/hashnode/graphql-definitions.ts';
import type { DerivedOperations } from './openapi-operations.ts';

/**
 * Reads the part of a GraphQL SDL that SPS uses into the GraphQL form of `definitions`
 * (test/simulators/hashnode/graphql-definitions.ts). A selection's routes are schema coordinates:
 * `Query.user(username)` takes an object type's field with the arguments named (the ones the
 * description requires must be named: a subset never drops a requirement), `PublishPostInput.title`
 * an input type's field. What they reach must be selected too: an object or input type none of
 * whose fields is named fails, so does an input type's required field left out; custom scalars and
 * enums come whole. Descriptions and directives are prose and go. GraphQL has one HTTP route, the
 * selection writes it (`written`); the reader answers no operations of its own.
 */
const coordinate = /^(\w+)\.(\w+)(?:\((\w+(?:,\s*\w+)*)\))?$/;

type InputDefinition = Extract<GraphqlDefinition, { kind: 'input' }>;

interface Reached {
  type: GraphQLOutputType | GraphQLInputType;
  by: string;
}

function selectField(
  schema: GraphQLSchema, route: string, into: Map<string, GraphqlDefinition>, reached: Reached[],
): void {
  const match = coordinate.exec(route);
  if (match === null) throw new Error(`${route}: not a schema coordinate (Type.field or Type.field(arg, ...))`);
  const [, typeName = '', fieldName = '', argList] = match;
  const type = schema.getType(typeName);
  if (isObjectType(type)) {
    const field: GraphQLField<unknown, unknown> | undefined = type.getFields()[fieldName];
    if (field === undefined) throw new Error(`${route}: ${typeName} has no field ${fieldName}`);
    const named = argList === undefined ? [] : argList.split(',').map((name) => name.trim());
    const args: Record<string, { type: string }> = {};
    for (const name of named) {
      const arg = field.args.find((candidate) => candidate.name === name);
      if (arg === undefined) throw new Error(`${route}: ${typeName}.${fieldName} takes no argument ${name}`);
      args[name] = { type: String(arg.type) };
      reached.push({ type: arg.type, by: `${route} argument ${name}` });
    }
    const required = field.args.filter((arg) => isRequiredArgument(arg) && !named.includes(arg.name));
    if (required.length > 0) {
      throw new Error(`${route}: leaves out the required ${required.map((arg) => arg.name).join(', ')}`);
    }
    const known = into.get(typeName) ?? { kind: 'object', fields: {} };
    if (known.kind !== 'object') throw new Error(`${route}: ${typeName} is not an object type`);
    known.fields[fieldName] = named.length === 0 ? { type: String(field.type) }
      : { type: String(field.type), args };
    into.set(typeName, known);
    reached.push({ type: field.type, by: route });
    return;
  }
  if (isInputObjectType(type)) {
    if (argList !== undefined) throw new Error(`${route}: an input field takes no arguments`);
    const field: GraphQLInputField | undefined = type.getFields()[fieldName];
    if (field === undefined) throw new Error(`${route}: ${typeName} has no field ${fieldName}`);
    const known = into.get(typeName) ?? { kind: 'input', fields: {} };
    (known as InputDefinition).fields[fieldName] = { type: String(field.type) };
    into.set(typeName, known);
    reached.push({ type: field.type, by: route });
    return;
  }
  throw new Error(`${route}: ${typeName} is neither an object nor an input type of the description`);
}

/** Each type a selected field or argument reaches is selected, or whole where it has no fields. */
function closeOver(reached: Reached[], into: Map<string, GraphqlDefinition>): void {
  for (const { type, by } of reached) {
    const named = getNamedType(type);
    if (isSpecifiedScalarType(named)) continue;
    if (isScalarType(named)) {
      into.set(named.name, { kind: 'scalar' });
    } else if (isEnumType(named)) {
      into.set(named.name, { kind: 'enum', values: named.getValues().map((value) => value.name) });
    } else if (!isObjectType(named) && !isInputObjectType(named)) {
      throw new Error(`${by} reaches ${named.name}, an interface or union the reader does not take`);
    } else if (!into.has(named.name)) {
      throw new Error(`${by} reaches ${named.name}, none of whose fields the selection names`);
    } else if (isInputObjectType(named)) {
      const selected = into.get(named.name);
      const fields = selected?.kind === 'input' ? selected.fields : {};
      const missing = Object.values(named.getFields())
        .filter((field) => isRequiredInputField(field) && fields[field.name] === undefined);
      if (missing.length > 0) {
        const names = missing.map((field) => field.name).join(', ');
        throw new Error(`${named.name}: the selection leaves out the required ${names}`);
      }
    }
  }
}

export function graphqlOperations(file: string, routes: string[]): DerivedOperations {
  const schema = buildSchema(readFileSync(file, 'utf8'));
  const into = new Map<string, GraphqlDefinition>();
  const reached: Reached[] = [];
  for (const route of routes) selectField(schema, route, into, reached);
  closeOver(reached, into);
  return { operations: [], definitions: Object.fromEntries(into) };
}
