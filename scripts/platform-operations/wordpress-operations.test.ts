import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersFolder, argumentSchema, wordpressOperations } from './wordpress-operations.ts';

/** A platform-specs folder cut to what the reader meets: a site's route dumps and the answer schemas beside them. */
const postArgs = {
  title: {
    description: 'The title.',
    type: 'object',
    properties: { raw: { type: 'string', context: ['edit'] } },
    required: false,
  },
  status: { type: 'string', enum: ['publish', 'draft'], required: false },
  date: { type: ['string', 'null'], format: 'date-time', required: false },
  link: { type: 'string', format: 'uri', required: false },
  author: { type: 'integer', required: true },
  meta: { type: 'object', properties: [], required: false },
};
const files: Record<string, unknown> = {
  'site/wp-json-index.json': {
    routes: {
      '/wp/v2/users/me': {
        endpoints: [{
          methods: ['GET'],
          args: { context: { type: 'string', enum: ['view', 'edit'], default: 'view', required: false } },
        }],
      },
      '/wp/v2/posts': {
        endpoints: [
          {
            methods: ['GET'],
            args: { per_page: { type: 'integer', minimum: 1, maximum: 100, default: 10, required: false } },
          },
          { methods: ['POST'], args: postArgs },
        ],
      },
      '/wp/v2/posts/(?P<id>[\\d]+)': {
        endpoints: [{
          methods: ['DELETE'],
          args: { id: { type: 'integer', required: false }, force: { type: 'boolean', default: false } },
        }],
      },
    },
  },
  'site/OPTIONS_wp_v2_users_me.json': { schema: { title: 'user' } },
  'site/OPTIONS_wp_v2_posts.json': { schema: { title: 'post' } },
  [`${answersFolder}/user.json`]: {
    $id: 'https://example.org/user.json', title: 'WP_REST_API_User', description: 'A user.', type: 'object',
    required: ['id', 'meta'],
    properties: {
      id: { type: 'integer', readOnly: true },
      meta: { oneOf: [{ $ref: '../../schema.json#/definitions/EmptyArray' }, { type: 'object' }] },
      roles: { type: 'array', items: { $ref: '../properties/role.json' } },
      _links: { $ref: 'properties/links.json' },
    },
    links: [
      { rel: 'self', href: '/wp/v2/users/{id}', hrefSchema: { properties: { id: { $ref: '#/properties/id' } } } },
    ],
  },
  [`${answersFolder}/post.json`]: {
    title: 'WP_REST_API_Post', type: 'object', properties: { author: { $ref: 'user.json#/properties/id' } },
  },
  [`${answersFolder}/error.json`]: {
    title: 'WP_REST_API_Error', type: 'object', required: ['code'],
    properties: { code: { type: 'string' }, additional_errors: { type: 'array', items: { $ref: 'error.json' } } },
  },
  [`${answersFolder}/properties/links.json`]: { title: 'WP_REST_API_Object_Links', type: 'object' },
  'johnbillion+wp-json-schemas/schemas/properties/role.json': {
    title: 'WP_Role', type: 'string', tsEnumNames: ['A'], enum: ['a'],
  },
  'johnbillion+wp-json-schemas/schema.json': {
    definitions: { EmptyArray: { type: 'array', tsType: '[]', items: {} } },
  },
};

let root = '';

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'sps-wordpress-specs-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), JSON.stringify(content));
  }
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('wordpressOperations', () => {
  const derived = () => wordpressOperations(path.join(root, 'site'),
    ['GET /wp/v2/users/me', 'POST /wp/v2/posts', 'GET /wp/v2/posts', 'DELETE /wp/v2/posts/(?P<id>[\\d]+)']);

  it('takes a GET\'s args as its open query, WordPress ignoring what a route does not register', () => {
    const [me] = derived().operations;
    expect(me?.route).toBe('GET /wp/v2/users/me');
    expect(me?.query).toEqual({
      type: 'object',
      properties: { context: { type: 'string', enum: ['view', 'edit'], default: 'view' } },
      additionalProperties: true,
    });
    expect(me?.body).toBeUndefined();
  });

  it('takes a POST\'s args as a JSON or form body with its required ones and the formats WordPress checks', () => {
    const post = derived().operations[1];
    const body = post?.body?.['application/json'] as { properties: Record<string, unknown>; required: string[] };
    expect(post?.body?.['application/x-www-form-urlencoded']).toEqual(body);
    expect(body.required).toEqual(['author']);
    expect(body.properties.date).toEqual({ type: ['string', 'null'], format: 'date-time' });
    expect(body.properties.link).toEqual({ type: 'string' });
    expect(body.properties.title).toEqual({
      type: 'object', properties: { raw: { type: 'string' } }, additionalProperties: true,
    });
    expect(body.properties.meta).toEqual({ type: 'object', properties: {}, additionalProperties: true });
    expect(post?.query).toMatchObject({ additionalProperties: true });
    expect(post?.query).not.toHaveProperty('required');
  });

  it('makes a named group a path parameter with its pattern', () => {
    const remove = derived().operations[3];
    expect(remove?.route).toBe('DELETE /wp/v2/posts/{id}');
    expect(remove?.pathParameters).toEqual({
      type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[\\d]+$' } },
    });
    expect(remove?.responses).toEqual({ 200: null, '4XX': { $ref: '#/definitions/WP_REST_API_Error' } });
  });

  it('answers with the item the OPTIONS dump names: one for /me, a list for a collection, 201 for a POST', () => {
    const [me, post, list] = derived().operations;
    expect(me?.responses).toEqual({
      200: { $ref: '#/definitions/WP_REST_API_User' }, '4XX': { $ref: '#/definitions/WP_REST_API_Error' },
    });
    expect(post?.responses['201']).toEqual({ $ref: '#/definitions/WP_REST_API_Post' });
    expect(list?.responses['200']).toEqual({ type: 'array', items: { $ref: '#/definitions/WP_REST_API_Post' } });
  });

  it('follows relative file references to named definitions, copying other fragments in place, without prose', () => {
    const { definitions } = derived();
    expect(Object.keys(definitions)).toEqual([
      'EmptyArray', 'WP_REST_API_Error', 'WP_REST_API_Object_Links', 'WP_REST_API_Post', 'WP_REST_API_User', 'WP_Role',
    ]);
    expect(definitions.WP_REST_API_User).toEqual({
      type: 'object',
      required: ['id', 'meta'],
      properties: {
        id: { type: 'integer' },
        meta: { oneOf: [{ $ref: '#/definitions/EmptyArray' }, { type: 'object' }] },
        roles: { type: 'array', items: { $ref: '#/definitions/WP_Role' } },
        _links: { $ref: '#/definitions/WP_REST_API_Object_Links' },
      },
    });
    expect(definitions.WP_REST_API_Post).toEqual({ type: 'object', properties: { author: { type: 'integer' } } });
    expect(definitions.WP_Role).toEqual({ type: 'string', enum: ['a'] });
    expect(definitions.EmptyArray).toEqual({ type: 'array', items: {} });
  });

  it('fails on a route or method the site does not have', () => {
    expect(() => wordpressOperations(path.join(root, 'site'), ['GET /wp/v2/pages'])).toThrow('no route /wp/v2/pages');
    expect(() => wordpressOperations(path.join(root, 'site'), ['PUT /wp/v2/posts'])).toThrow('takes no PUT');
  });

  it('turns draft-04 boolean bounds into numbers', () => {
    expect(argumentSchema({ type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 5, required: true }))
      .toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: 5 });
  });
});
