import { describe, expect, it } from 'vitest';
import { OperationCheck } from '../../test/simulators/kit/operation-check.ts';
import type { SimulatedRequest } from '../../test/simulators/kit/simulator-server.ts';
import { metaOperationsFrom, type MetaNode } from './meta-operations.ts';

/** A few nodes as Meta's codegen specs write them. */
const specs: Record<string, MetaNode> = {
  Page: {
    fields: [
      { name: 'id', type: 'string' },
      { name: 'fan_count', type: 'unsigned int' },
      { name: 'instagram_business_account', type: 'IGUser' },
      { name: 'category_list', type: 'list<PageCategory>' },
      { name: 'hours', type: 'map<string, string>' },
      { name: 'attire', type: 'page_attire' },
    ],
    apis: [
      { method: 'GET', endpoint: 'feed', return: 'PagePost', params: [{ name: 'since', type: 'datetime' }] },
      {
        method: 'POST',
        endpoint: 'feed',
        return: 'Page',
        params: [
          { name: 'message', type: 'string' },
          { name: 'attached_media', type: 'list<Object>' },
          { name: 'published', type: 'bool' },
        ],
      },
      { method: 'GET', return: 'Page' },
    ],
  },
  PagePost: {
    fields: [{ name: 'id', type: 'string' }, { name: 'created_time', type: 'datetime' }],
    apis: [{ method: 'DELETE', endpoint: 'likes', return: 'Object' }, { method: 'DELETE', return: 'Object' }],
  },
  IGUser: { fields: [{ name: 'id', type: 'string' }, { name: 'username', type: 'string' }], apis: [] },
  Unused: { fields: [{ name: 'id', type: 'string' }], apis: [] },
};

const read = (routes: string[]) => metaOperationsFrom((name) => specs[name], routes);

const formType = 'application/x-www-form-urlencoded';

function request(method: string, target: string, body = '', type = formType): SimulatedRequest {
  const url = new URL(target, 'http://graph');
  return {
    method, path: url.pathname, query: url.searchParams, headers: { 'content-type': type }, text: body,
    raw: Buffer.from(body), receivedAt: Date.now(),
  };
}

describe('the Meta codegen reader', () => {
  const derived = read([
    'GET /{version}/{node-id} Page|PagePost',
    'GET /{version}/{page-id}/feed Page.feed',
    'POST /{version}/{page-id}/feed Page.feed',
  ]);
  const [node, edgeRead, edgeWrite] = derived.operations;

  it('names each route by its method and path, with the Graph version as v<major>.<minor>', () => {
    expect(derived.operations.map((operation) => operation.route)).toEqual([
      'GET /{version}/{node-id}', 'GET /{version}/{page-id}/feed', 'POST /{version}/{page-id}/feed',
    ]);
    expect(node?.pathParameters).toEqual({
      type: 'object',
      required: ['version', 'node-id'],
      properties: { version: { type: 'string', pattern: '^v\\d+\\.\\d+$' }, 'node-id': { type: 'string' } },
    });
  });

  it('answers a node read as any of the nodes the route names, each closed to its fields and edges', () => {
    // IGUser is answered by no route here: Page's field of that type is an open object.
    expect(node?.responses['200']).toEqual({
      anyOf: [{ $ref: '#/definitions/Page' }, { $ref: '#/definitions/PagePost' }],
    });
    expect(derived.definitions.Page).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        attire: { type: 'string' },
        category_list: { type: 'array', items: { type: 'object' } },
        fan_count: { type: 'integer', minimum: 0 },
        feed: { $ref: '#/definitions/GraphConnection' },
        hours: { type: 'object', additionalProperties: { type: 'string' } },
        id: { type: 'string' },
        instagram_business_account: { type: 'object' },
      },
    });
    expect(Object.keys(derived.definitions))
      .toEqual(['GraphConnection', 'GraphError', 'GraphPaging', 'Page', 'PagePost']);
    expect(node?.responses['4XX']).toEqual({ $ref: '#/definitions/GraphError' });
  });

  it('types a node\'s field by the node\'s definition where a route answers that node', () => {
    const withAccount = read(['GET /{version}/me Page', 'GET /{version}/{ig-user-id} IGUser']);
    expect(withAccount.definitions.Page).toMatchObject({
      properties: { instagram_business_account: { $ref: '#/definitions/IGUser' } },
    });
    expect(withAccount.definitions.IGUser).toEqual({
      type: 'object', additionalProperties: false, properties: { id: { type: 'string' }, username: { type: 'string' } },
    });
  });

  it('reads an edge as a connection, with its params, fields and cursors as the query', () => {
    const query = edgeRead?.query as { properties: Record<string, unknown> };
    expect(Object.keys(query.properties).sort()).toEqual(
      ['access_token', 'after', 'appsecret_proof', 'before', 'fields', 'limit', 'since'],
    );
    expect(query.properties.since).toEqual({ type: 'string' });
    expect(edgeRead?.responses['200'])
      .toMatchObject({ properties: { data: { items: { $ref: '#/definitions/PagePost' } } } });
  });

  it('takes an edge write\'s params as a form (lists as JSON text) or typed JSON, answered as its return node', () => {
    const body = edgeWrite?.body ?? {};
    const form = body['application/x-www-form-urlencoded'] as { properties: Record<string, unknown> };
    const json = body['application/json'] as { properties: Record<string, unknown> };
    expect(form).toEqual(body['multipart/form-data']);
    expect(form.properties.attached_media).toEqual({ type: 'string' });
    expect(json.properties.attached_media).toEqual({ type: 'array', items: {} });
    expect(json.properties.published).toEqual({ type: 'boolean' });
    expect(edgeWrite?.bodyRequired).toBe(false);
    expect(edgeWrite?.responses['200']).toEqual({ $ref: '#/definitions/Page' });
  });

  it('holds requests through the kit: fields syntax, form types and unknown params', () => {
    const check = new OperationCheck({
      platform: 'example', generatedBy: 'this test', source: { description: null, format: 'meta' },
      corrections: [], ...derived,
    });
    const fields = encodeURIComponent('id,instagram_business_account{id,username},feed.limit(0){created_time}');
    expect(check.checkRequest(request('GET', `/v26.0/1001?fields=${fields}`)).problems).toEqual([]);
    expect(check.checkRequest(request('GET', '/v26.0/1001?fields=id,,name')).problems).toHaveLength(1);
    expect(check.checkRequest(request('GET', '/26/1001')).problems)
      .toEqual(['path.version must match pattern "^v\\d+\\.\\d+$"']);
    const media = encodeURIComponent(JSON.stringify([{ media_fbid: '1' }]));
    expect(check.checkRequest(request('POST', '/v26.0/1001/feed', `message=hi&attached_media=${media}`)).problems)
      .toEqual([]);
    expect(check.checkRequest(request('POST', '/v26.0/1001/feed', 'attached_media[0]=x&published=maybe')).problems)
      .toEqual(['body.attached_media[0] is not a parameter of the operation', 'body.published must be boolean']);
  });

  it('reads a node\'s own delete (no edge): the object\'s id in the path, an open answer', () => {
    const [remove] = read(['DELETE /{version}/{node-id} PagePost']).operations;
    expect(remove?.route).toBe('DELETE /{version}/{node-id}');
    expect(remove?.responses['200']).toEqual({});
    expect(() => read(['DELETE /{version}/{node-id} Page'])).toThrow('Page has no DELETE (node)');
  });

  it('refuses a route whose node or edge the specs lack, or that it cannot read', () => {
    expect(() => read(['GET /{version}/{id} Album'])).toThrow('the specs have no node Album');
    expect(() => read(['POST /{version}/{id}/photos Page.photos'])).toThrow('Page has no POST photos');
    expect(() => read(['GET /{version}/{id}/feed Page.posts'])).toThrow('does not end with the edge posts');
    expect(() => read(['GET /{version}/{id}'])).toThrow('is not "<METHOD> <path> <Node>');
  });
});
