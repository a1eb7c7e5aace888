import { describe, expect, it } from 'vitest';
import { OperationCheck } from '../../test/simulators/kit/operation-check.ts';
import type { SimulatedRequest } from '../../test/simulators/kit/simulator-server.ts';
import { discoveryOperations } from './discovery-operations.ts';

/** A discovery document in the shape Google publishes, cut down to what the reader reads. */
const document = {
  kind: 'discovery#restDescription',
  rootUrl: 'https://example.googleapis.com/',
  servicePath: 'things/v1/',
  parameters: {
    key: { type: 'string', location: 'query', description: 'API key.' },
    uploadType: { type: 'string', location: 'query' },
  },
  resources: {
    accounts: {
      resources: {
        things: {
          methods: {
            list: {
              id: 'things.accounts.things.list',
              httpMethod: 'GET',
              path: '{+parent}/things',
              flatPath: 'accounts/{accountsId}/things',
              parameters: {
                parent: { type: 'string', location: 'path', required: true, pattern: '^accounts/[^/]+$' },
                part: { type: 'string', location: 'query', repeated: true, required: true },
                pageSize: { type: 'integer', format: 'int32', location: 'query', minimum: '1', maximum: '50' },
                state: { type: 'string', location: 'query', enum: ['LIVE', 'GONE'], enumDescriptions: ['', ''] },
              },
              response: { $ref: 'ListThingsResponse' },
            },
            insert: {
              httpMethod: 'POST',
              path: '{+parent}/things',
              parameters: { parent: { type: 'string', location: 'path', required: true } },
              request: { $ref: 'Thing' },
              response: { $ref: 'Thing' },
              mediaUpload: {
                accept: ['image/png', 'application/octet-stream'],
                protocols: { simple: { multipart: true, path: '/upload/things/v1/{+parent}/things' } },
              },
            },
          },
        },
      },
    },
  },
  schemas: {
    ListThingsResponse: {
      id: 'ListThingsResponse',
      type: 'object',
      properties: { things: { type: 'array', items: { $ref: 'Thing' } }, nextPageToken: { type: 'string' } },
    },
    Thing: {
      id: 'Thing',
      type: 'object',
      description: 'A thing.',
      properties: {
        name: { type: 'string', readOnly: true },
        size: { type: 'string', format: 'int64' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        extra: { type: 'any' },
      },
    },
    Unused: { id: 'Unused', type: 'object', properties: {} },
  },
};

function request(method: string, target: string, body = '', type = 'application/json'): SimulatedRequest {
  const url = new URL(target, 'http://google');
  return {
    method, path: url.pathname, query: url.searchParams, headers: { 'content-type': type }, text: body,
    raw: Buffer.from(body), receivedAt: Date.now(),
  };
}

describe('the Google discovery reader', () => {
  const derived = discoveryOperations(document, [
    'GET /things/v1/{+parent}/things',
    'GET /things/v1/accounts/{accountsId}/things',
    'POST /upload/things/v1/{+parent}/things',
  ]);
  const [list, flat, upload] = derived.operations;

  it('takes a method by its path under the servicePath, its path parameters with their patterns', () => {
    expect(list?.pathParameters).toEqual({
      type: 'object', required: ['parent'], properties: { parent: { type: 'string', pattern: '^accounts/[^/]+$' } },
    });
    expect(flat?.pathParameters).toEqual({
      type: 'object', required: ['accountsId'], properties: { accountsId: { type: 'string' } },
    });
  });

  it('writes the query with the document\'s own parameters, repeated ones as lists, bounds as numbers', () => {
    expect(list?.query).toEqual({
      type: 'object',
      required: ['part'],
      properties: {
        key: { type: 'string' },
        uploadType: { type: 'string' },
        part: { type: 'array', items: { type: 'string' } },
        pageSize: { type: 'integer', format: 'int32', minimum: 1, maximum: 50 },
        state: { type: 'string', enum: ['LIVE', 'GONE'] },
      },
    });
  });

  it('answers with the response schema, the definitions it reaches without prose, and Google\'s errors', () => {
    expect(list?.responses).toEqual({
      200: { $ref: '#/definitions/ListThingsResponse' },
      '4XX': { $ref: '#/definitions/GoogleError' },
      '5XX': { $ref: '#/definitions/GoogleError' },
    });
    expect(Object.keys(derived.definitions)).toEqual(['GoogleError', 'ListThingsResponse', 'Thing']);
    expect(derived.definitions.Thing).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        size: { type: 'string', format: 'int64' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        extra: {},
      },
    });
  });

  it('takes a media upload path with the JSON resource and the media types it accepts', () => {
    expect(upload?.route).toBe('POST /upload/things/v1/{+parent}/things');
    expect(upload?.body).toEqual({
      'application/json': { $ref: '#/definitions/Thing' }, 'image/png': {}, 'application/octet-stream': {},
    });
    expect(upload?.bodyRequired).toBe(true);
  });

  it('holds requests through the kit, {+parent} holding slashes', () => {
    const check = new OperationCheck({
      platform: 'example', generatedBy: 'this test', source: { description: null, format: 'discovery' },
      corrections: [], ...derived,
    });
    expect(check.checkRequest(request('GET', '/things/v1/accounts/7/things?part=a&part=b&pageSize=5')).problems)
      .toEqual([]);
    expect(check.checkRequest(request('GET', '/things/v1/accounts/7/things?pageSize=99&state=NEW')).problems).toEqual([
      'query must have required property \'part\'',
      'query.pageSize must be <= 50',
      'query.state must be equal to one of the allowed values (["LIVE","GONE"])',
    ]);
    const body = JSON.stringify({ name: 'x', colour: 'red' });
    expect(check.checkRequest(request('POST', '/upload/things/v1/accounts/7/things', body)).problems)
      .toEqual(['body.colour is not a field of the operation']);
    expect(check.checkRequest(request('POST', '/upload/things/v1/accounts/7/things', 'png', 'image/png')).problems)
      .toEqual([]);
  });

  it('refuses a route the document does not write, and a document that is not discovery', () => {
    expect(() => discoveryOperations(document, ['GET /things/v1/{+parent}/widgets']))
      .toThrow('is not in the description');
    expect(() => discoveryOperations({ openapi: '3.0.0' }, [])).toThrow('not a Google discovery document');
  });
});
