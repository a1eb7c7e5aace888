import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeOffDescription } from '../kit/conformance-log.ts';
import { startHashnodeSimulator, type RunningHashnodeSimulator } from './hashnode-simulator.ts';

const adaId = '65a1f0c2e4b0a1b2c3d4e5f6';
const blog = '64a1b2c3d4e5f60718293a4b';

let hashnode: RunningHashnodeSimulator;

beforeAll(async () => {
  hashnode = await startHashnodeSimulator([{
    id: adaId, username: 'ada', name: 'Ada Lovelace', profilePicture: null, email: 'ada@example.com',
    tokens: ['ada-token'],
  }], {
    publications: [
      { id: blog, title: 'Ada writes', url: 'https://ada.hashnode.dev', pro: true, members: { [adaId]: 'OWNER' } },
    ],
  });
});
afterAll(async () => { await hashnode.close(); });

interface GraphqlError { message: string; locations?: unknown; path?: unknown; extensions: { code: string } }

async function post(body: unknown, contentType = 'application/json') {
  const response = await fetch(hashnode.url, {
    method: 'POST',
    headers: { 'Content-Type': contentType, Authorization: 'ada-token' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const answer = await response.json() as { data?: unknown; errors?: GraphqlError[] };
  return { status: response.status, ...answer };
}

const publishMutation = 'mutation P($input: PublishPostInput!) { publishPost(input: $input) { post { id url } } }';

describe('the Hashnode simulator held to the gql-beta schema SPS uses', () => {
  it('refuses the older schema\'s User.posts(page, pageSize) as graphql-js validation does', async () => {
    const answer = await post({
      query: 'query { user(username: "ada") { posts(page: 1, pageSize: 20) { edges { node { id } } } } }',
    });
    expect(answer.status).toBe(400);
    expect(answer.data).toBeUndefined();
    expect(answer.errors?.map(({ message }) => message)).toEqual([
      'Unknown argument "page" on field "User.posts".',
      'Unknown argument "pageSize" on field "User.posts".',
      'Field "posts" argument "first" of type "Int!" is required, but it was not provided.',
    ]);
    expect(answer.errors?.every((error) => error.extensions.code === 'GRAPHQL_VALIDATION_FAILED')).toBe(true);
  });

  it('refuses an argument, a field or a variable type the schema does not declare', async () => {
    const argument = await post({ query: 'query { tag(slug: "js", first: 3) { id } }' });
    expect(argument).toMatchObject({ status: 400, errors: [{
      message: 'Unknown argument "first" on field "Query.tag".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    }] });
    const field = await post({ query: 'query { me { username email } }' });
    expect(field.errors?.[0]?.message).toBe('Cannot query field "email" on type "MyUser".');
    const query = 'query P($id: String!) { publication(id: $id) { id } }';
    const variable = await post({ query, variables: { id: blog } });
    expect(variable.errors?.[0]).toMatchObject({
      message: 'Variable "$id" of type "String!" used in position expecting type "ObjectId".',
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
  });

  it('refuses variables that do not fit their types with BAD_USER_INPUT, running nothing', async () => {
    const input = { publicationId: blog, title: 'Refused', contentMarkdown: 'Text', tags: [{ slug: 'js' }] };
    const wrongId = await post({ query: publishMutation, variables: { input: { ...input, seriesId: 'nope' } } });
    expect(wrongId).toMatchObject({ status: 400, errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
    expect(wrongId.errors?.[0]?.message).toMatch(/at "input\.seriesId"; ObjectId cannot represent value: "nope"$/);
    const notBoolean = { ...input, disableComments: 'yes' };
    const wrongKind = await post({ query: publishMutation, variables: { input: notBoolean } });
    expect(wrongKind.errors?.[0]?.message).toMatch(/Boolean cannot represent a non boolean value: "yes"$/);
    const missing = await post({ query: publishMutation, variables: {} });
    expect(missing.errors?.[0]?.message)
      .toBe('Variable "$input" of required type "PublishPostInput!" was not provided.');
    expect(hashnode.world.posts).toHaveLength(0);
  });

  it('refuses what is not a GraphQL request the way Apollo Server does', async () => {
    expect(await post('query { me { id } }', 'text/plain')).toMatchObject({
      status: 400, errors: [{ extensions: { code: 'BAD_REQUEST' } }],
    });
    expect(await post({ variables: {} })).toMatchObject({ status: 400, errors: [{
      message: 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.',
      extensions: { code: 'BAD_REQUEST' },
    }] });
    const broken = await post({ query: 'query { me { id }' });
    expect(broken).toMatchObject({ status: 400, errors: [{ extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] });
    expect(broken.errors?.[0]?.message).toMatch(/^Syntax Error: /);
  });

  it('answers what the schema allows, and nothing it does not ask for', async () => {
    const published = await post({
      query: publishMutation,
      variables: { input: { publicationId: blog, title: 'Held', contentMarkdown: 'Text', tags: [{ slug: 'js' }] } },
    });
    expect(published.status).toBe(200);
    const made = hashnode.world.posts.at(-1);
    expect(published.data).toEqual({ publishPost: { post: { id: made?.id, url: made?.url } } });
    expect(made?.url).toBe(`https://ada.hashnode.dev/${made?.slug ?? ''}`);
    const unauthenticated = await fetch(hashnode.url, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ me { id } }' }),
    });
    // gql-beta's `me` is nullable: the refusal leaves it null beside the error.
    expect(await unauthenticated.json()).toEqual({
      errors: [{
        message: 'Invalid or missing access token', locations: [{ line: 1, column: 3 }], path: ['me'],
        extensions: { code: 'UNAUTHENTICATED' },
      }],
      data: { me: null },
    });
  });

  it('fails the test when the simulator answers off the schema (a null where it allows none)', async () => {
    const held = hashnode.world.posts.at(-1);
    if (held === undefined) throw new Error('no post');
    Object.assign(held, { title: null });
    const query = 'query P($id: ID!) { post(id: $id) { id title } }';
    const answer = await post({ query, variables: { id: held.id } });
    held.title = 'Held';
    expect(answer.errors?.[0]).toMatchObject({
      message: 'Cannot return null for non-nullable field Post.title.', extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    // What the conformance log holds fails the test after it (test/support/simulator-conformance.ts).
    expect(takeOffDescription()).toEqual([{
      platform: 'hashnode', route: 'POST /', status: 200,
      problems: ['Cannot return null for non-nullable field Post.title. at post.title'],
    }]);
  });
});
