import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, validate } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { graphqlSchemaOf } from '../../test/simulators/hashnode/graphql-definitions.ts';
import { graphqlOperations } from './graphql-operations.ts';

const folder = mkdtempSync(path.join(tmpdir(), 'sps-graphql-'));
const file = path.join(folder, 'schema.graphql');
writeFileSync(file, `
"""Prose goes."""
scalar ObjectId
enum Sort { NEW OLD }
type Query {
  user(username: String!, sort: Sort): User
  feed(page: Int!, pageSize: Int!): [User!]!
  node(id: ID!): Node
}
interface Node { id: ID! }
type User { id: ID! name: String! bio: String posts(first: Int!, sort: Sort): [Post!]! }
type Post { id: ID! title: String! }
type Mutation { publish(input: PublishInput!): Post @deprecated(reason: "prose") }
input PublishInput { publicationId: ObjectId! title: String! tags: [TagInput!] }
input TagInput { slug: String! name: String }
`);
afterAll(() => { rmSync(folder, { recursive: true }); });

describe('the graphql reader', () => {
  it('takes the fields and arguments a selection names, and the scalars and enums they reach', () => {
    const derived = graphqlOperations(file, [
      'Query.user(username, sort)', 'User.name', 'User.posts(first)', 'Post.title',
      'Mutation.publish(input)', 'PublishInput.publicationId', 'PublishInput.title',
    ]);
    expect(derived.operations).toEqual([]);
    expect(derived.definitions).toEqual({
      Query: {
        kind: 'object',
        fields: { user: { type: 'User', args: { username: { type: 'String!' }, sort: { type: 'Sort' } } } },
      },
      User: {
        kind: 'object',
        fields: { name: { type: 'String!' }, posts: { type: '[Post!]!', args: { first: { type: 'Int!' } } } },
      },
      Post: { kind: 'object', fields: { title: { type: 'String!' } } },
      Mutation: { kind: 'object', fields: { publish: { type: 'Post', args: { input: { type: 'PublishInput!' } } } } },
      PublishInput: { kind: 'input', fields: { publicationId: { type: 'ObjectId!' }, title: { type: 'String!' } } },
      Sort: { kind: 'enum', values: ['NEW', 'OLD'] },
      ObjectId: { kind: 'scalar' },
    });
  });

  it('gives a schema graphql-js validates requests against: what was not selected is unknown', () => {
    const schema = graphqlSchemaOf(graphqlOperations(file, ['Query.user(username)', 'User.name']).definitions);
    expect(validate(schema, parse('{ user(username: "ada") { name } }'))).toEqual([]);
    expect(validate(schema, parse('{ user(username: "ada") { bio } }')).map((error) => error.message))
      .toEqual(['Cannot query field "bio" on type "User".']);
  });

  it('never drops a requirement, nor leaves a reached type without fields', () => {
    expect(() => graphqlOperations(file, ['Query.feed'])).toThrow('Query.feed: leaves out the required page, pageSize');
    expect(() => graphqlOperations(file, ['Query.user(username)']))
      .toThrow('Query.user(username) reaches User, none of whose fields the selection names');
    expect(() => graphqlOperations(file, ['Mutation.publish(input)', 'PublishInput.title', 'Post.id']))
      .toThrow('PublishInput: the selection leaves out the required publicationId');
    expect(() => graphqlOperations(file, ['Query.user(name)'])).toThrow('Query.user takes no argument name');
    expect(() => graphqlOperations(file, ['User.email'])).toThrow('User has no field email');
    expect(() => graphqlOperations(file, ['Query.node(id)'])).toThrow('an interface or union the reader does not take');
  });
});
