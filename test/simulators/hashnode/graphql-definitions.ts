import {
  assertInputType, assertOutputType, GraphQLEnumType, GraphQLError, GraphQLInputObjectType, GraphQLList,
  GraphQLNonNull, GraphQLObjectType, GraphQLScalarType, GraphQLSchema, Kind, parseType, specifiedScalarTypes,
  type GraphQLNamedType, type GraphQLType, type TypeNode,
} from 'graphql';
import { z } from 'zod';

/**
 * The GraphQL form of an operation file's `definitions` (format `graphql`): each type SPS reaches,
 * by name, with only the fields (and arguments) SPS uses, as scripts/platform-operations/
 * graphql-operations.ts takes them out of a published SDL. Type references are written as SDL
 * writes them (`[PublishPostTagInput!]`, `Int!`). Top-level keys avoid JSON Schema's keywords,
 * so the kit's JSON Schema compiler, which loads every definition, reads them as empty schemas;
 * a scalar's `pattern` means what it means in JSON Schema (the strings the scalar takes).
 */
const typeReference = z.string().regex(/^[[\]!\w]+$/);

export const graphqlDefinition = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('object'),
    fields: z.record(z.string(), z.object({
      type: typeReference,
      args: z.record(z.string(), z.object({ type: typeReference })).optional(),
    }).strict()),
  }).strict(),
  z.object({ kind: z.literal('input'), fields: z.record(z.string(), z.object({ type: typeReference }).strict()) })
    .strict(),
  z.object({ kind: z.literal('enum'), values: z.array(z.string()).min(1) }).strict(),
  z.object({ kind: z.literal('scalar'), pattern: z.string().optional() }).strict(),
]);

export type GraphqlDefinition = z.infer<typeof graphqlDefinition>;

const builtIn = new Map<string, GraphQLNamedType>(specifiedScalarTypes.map((scalar) => [scalar.name, scalar]));

/** A custom scalar: any value, or with a pattern only strings matching it, both ways. */
function scalarOf(name: string, pattern: string | undefined): GraphQLScalarType {
  if (pattern === undefined) return new GraphQLScalarType({ name });
  const matcher = new RegExp(pattern);
  const checked = (value: unknown): string => {
    if (typeof value === 'string' && matcher.test(value)) return value;
    const shown = value === undefined ? 'nothing' : JSON.stringify(value);
    throw new GraphQLError(`${name} cannot represent value: ${shown}`);
  };
  return new GraphQLScalarType({
    name,
    serialize: checked,
    parseValue: checked,
    parseLiteral: (node) => checked(node.kind === Kind.STRING ? node.value : undefined),
  });
}

/** The executable schema the definitions describe: Query, and Mutation where there is one. */
export function graphqlSchemaOf(definitions: Record<string, unknown>): GraphQLSchema {
  const parsed = Object.entries(definitions).map(([name, definition]) => {
    const read = graphqlDefinition.safeParse(definition);
    if (!read.success) throw new Error(`definition ${name} is not of the GraphQL form: ${read.error.message}`);
    return [name, read.data] as const;
  });
  const named = new Map<string, GraphQLNamedType>(builtIn);
  const typeOf = (node: TypeNode): GraphQLType => {
    if (node.kind === Kind.NON_NULL_TYPE) return new GraphQLNonNull(typeOf(node.type));
    if (node.kind === Kind.LIST_TYPE) return new GraphQLList(typeOf(node.type));
    const found = named.get(node.name.value);
    if (found === undefined) throw new Error(`a reference to an undefined type: ${node.name.value}`);
    return found;
  };
  const reference = (text: string): GraphQLType => typeOf(parseType(text));
  const argumentsOf = (args: Record<string, { type: string }> | undefined) => Object.fromEntries(
    Object.entries(args ?? {}).map(([name, arg]) => [name, { type: assertInputType(reference(arg.type)) }]),
  );
  for (const [name, definition] of parsed) {
    switch (definition.kind) {
      case 'object':
        named.set(name, new GraphQLObjectType({
          name,
          fields: () => Object.fromEntries(Object.entries(definition.fields).map(([field, { type, args }]) =>
            [field, { type: assertOutputType(reference(type)), args: argumentsOf(args) }])),
        }));
        break;
      case 'input':
        named.set(name, new GraphQLInputObjectType({
          name,
          fields: () => Object.fromEntries(Object.entries(definition.fields)
            .map(([field, { type }]) => [field, { type: assertInputType(reference(type)) }])),
        }));
        break;
      case 'enum':
        named.set(name, new GraphQLEnumType({
          name, values: Object.fromEntries(definition.values.map((value) => [value, {}])),
        }));
        break;
      case 'scalar':
        named.set(name, scalarOf(name, definition.pattern));
        break;
    }
  }
  const root = (name: string): GraphQLObjectType | undefined => {
    const type = named.get(name);
    return type instanceof GraphQLObjectType ? type : undefined;
  };
  const query = root('Query');
  if (query === undefined) throw new Error('the definitions have no Query type');
  const types = [...named.values()].filter((type) => !builtIn.has(type.name));
  return new GraphQLSchema({ query, mutation: root('Mutation'), types });
}
