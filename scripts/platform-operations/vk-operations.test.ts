import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vkOperations } from './vk-operations.ts';

/** A vk-api-schema folder cut to what the reader meets: a method file, responses, objects across sections. */
const files: Record<string, unknown> = {
  'wall/methods.json': {
    methods: [
      {
        name: 'wall.post',
        description: 'Adds a post.',
        access_token_type: ['user'],
        parameters: [
          { name: 'owner_id', description: 'Whose wall.', type: 'integer', format: 'int64', entity: 'owner' },
          { name: 'from_group', description: '1 - as the community', type: 'boolean' },
          { name: 'attachments', type: 'array', items: { type: 'string' } },
          { name: 'message', type: 'string', required: true },
        ],
        responses: { response: { $ref: '../wall/responses.json#/definitions/wall_post_response' } },
        errors: [{ $ref: '../errors.json#/errors/api_error_wall_add_post' }],
      },
      {
        name: 'wall.get',
        access_token_type: ['user'],
        parameters: [{ name: 'count', type: 'integer', minimum: 0 }],
        responses: {
          response: { $ref: '../wall/responses.json#/definitions/wall_get_response' },
          extendedResponse: { $ref: '../wall/responses.json#/definitions/wall_get_extended_response' },
        },
      },
    ],
  },
  'wall/responses.json': {
    definitions: {
      wall_post_response: {
        type: 'object',
        properties: {
          response: {
            type: 'object',
            properties: { post_id: { type: 'integer', description: 'Created post ID', required: true } },
            required: true,
          },
        },
      },
      wall_get_response: {
        type: 'object',
        properties: {
          response: {
            type: 'object',
            properties: {
              items: { type: 'array', items: { $ref: '../wall/objects.json#/definitions/wall_item' }, required: true },
            },
            required: true,
          },
        },
      },
      wall_get_extended_response: {
        type: 'object',
        properties: { response: { $ref: '../wall/objects.json#/definitions/shared_page', required: true } },
      },
    },
  },
  'wall/objects.json': {
    definitions: {
      wall_item: {
        type: 'object',
        properties: {
          id: { type: 'integer', required: true },
          likes: { $ref: '../base/objects.json#/definitions/base_likes', description: 'Likes' },
          kind: { type: 'string', enum: ['post', 'copy'], enumNames: ['Post', 'Copy'] },
          data: { type: 'string', format: 'json' },
        },
      },
      shared_page: { type: 'object', properties: { wall: { type: 'boolean' } } },
    },
  },
  'base/objects.json': {
    definitions: {
      base_likes: {
        type: 'object',
        properties: { count: { type: 'integer', required: true }, page: { $ref: '#/definitions/shared_page' } },
      },
      base_error: {
        type: 'object',
        properties: {
          error_code: { type: 'integer', required: true },
          error_msg: { type: 'string' },
        },
      },
      shared_page: { type: 'object', properties: { base: { type: 'boolean' } } },
    },
  },
  'errors.json': {
    errors: {
      api_error_param: { code: 100, description: 'A parameter is wrong', global: true },
      api_error_auth: { code: 5, description: 'Authorization failed', global: true },
      api_error_wall_add_post: { code: 214, description: 'Access to adding post denied' },
      api_error_wall_other: { code: 219, description: 'Not this method\'s' },
    },
  },
};

let root = '';

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'sps-vk-schema-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), JSON.stringify(content));
  }
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('vkOperations', () => {
  it('takes a method\'s parameters as form fields with the token and version, its lists comma-separated', () => {
    const [post] = vkOperations(root, ['POST /method/wall.post']).operations;
    expect(post?.route).toBe('POST /method/wall.post');
    expect(post?.body).toEqual({
      'application/x-www-form-urlencoded': {
        type: 'object',
        properties: {
          owner_id: { type: 'integer', format: 'int64' },
          from_group: { anyOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }] },
          attachments: { type: 'array', items: { type: 'string' } },
          message: { type: 'string' },
          access_token: { type: 'string' },
          v: { type: 'string' },
        },
        required: ['message', 'v'],
      },
    });
    expect(post?.bodyRequired).toBe(true);
    expect(post?.commaSeparated).toEqual(['attachments']);
  });

  it('answers {response} as 200 and {error} as default, its code a global one or the method\'s own', () => {
    const [post] = vkOperations(root, ['POST /method/wall.post']).operations;
    expect(post?.responses).toEqual({
      200: { $ref: '#/definitions/wall_post_response' },
      default: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            allOf: [{ $ref: '#/definitions/base_error' }, { properties: { error_code: { enum: [5, 100, 214] } } }],
          },
        },
      },
    });
  });

  it('turns required: true into its object\'s required list, and follows references across files', () => {
    const { definitions, operations } = vkOperations(root, ['GET /method/wall.get']);
    expect(operations[0]?.query).toEqual({
      type: 'object',
      properties: { count: { type: 'integer', minimum: 0 }, access_token: { type: 'string' }, v: { type: 'string' } },
      required: ['v'],
    });
    expect(operations[0]?.responses[200]).toEqual({
      anyOf: [{ $ref: '#/definitions/wall_get_response' }, { $ref: '#/definitions/wall_get_extended_response' }],
    });
    expect(definitions.wall_post_response).toBeUndefined();
    expect(definitions.wall_get_response).toEqual({
      type: 'object',
      properties: {
        response: {
          type: 'object',
          properties: { items: { type: 'array', items: { $ref: '#/definitions/wall_item' } } },
          required: ['items'],
        },
      },
      required: ['response'],
    });
    expect(definitions.wall_item).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer' },
        likes: { $ref: '#/definitions/base_likes' },
        kind: { type: 'string', enum: ['post', 'copy'] },
        data: { type: 'string' },
      },
      required: ['id'],
    });
    expect(definitions.base_likes).toEqual({
      type: 'object',
      properties: { count: { type: 'integer' }, page: { $ref: '#/definitions/base_objects_shared_page' } },
      required: ['count'],
    });
  });

  it('gives a name two files define a qualified name, and lists the files read in order', () => {
    const derived = vkOperations(root, ['POST /method/wall.post', 'POST /method/wall.get']);
    expect(Object.keys(derived.definitions)).toEqual([
      'base_error', 'base_likes', 'base_objects_shared_page', 'shared_page', 'wall_get_extended_response',
      'wall_get_response', 'wall_item', 'wall_post_response',
    ]);
    expect(derived.definitions.shared_page).toEqual({ type: 'object', properties: { wall: { type: 'boolean' } } });
    expect(derived.definitions.base_objects_shared_page).toEqual({
      type: 'object', properties: { base: { type: 'boolean' } },
    });
    expect(derived.filesRead?.map((file) => path.relative(root, file))).toEqual([
      'wall/methods.json', 'wall/responses.json', 'errors.json', 'base/objects.json', 'wall/objects.json',
    ]);
  });

  it('refuses a route that is not a method call, or a method its section does not list', () => {
    expect(() => vkOperations(root, ['POST /wall.post'])).toThrow(/not a VK API route/);
    expect(() => vkOperations(root, ['POST /method/wall.delete'])).toThrow(/not in the description/);
  });
});
