import { describe, expect, it } from 'vitest';
import { OperationCheck } from './operation-check.ts';
import type { OperationFile } from './operation-file.ts';
import type { SimulatedRequest } from './simulator-server.ts';

const file: OperationFile = {
  platform: 'example',
  generatedBy: 'this test',
  source: { description: null, format: 'written' },
  corrections: [],
  definitions: {
    Base: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
    Note: {
      allOf: [
        { $ref: '#/definitions/Base' },
        { type: 'object', properties: { text: { type: 'string', maxLength: 5 } } },
      ],
    },
  },
  operations: [
    {
      route: 'POST /notes',
      body: {
        'application/json': {
          type: 'object', required: ['note'], properties: { note: { $ref: '#/definitions/Note' } },
        },
        'application/x-www-form-urlencoded': {
          type: 'object', properties: { text: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
        },
      },
      bodyRequired: true,
      responses: { 201: { $ref: '#/definitions/Note' }, 422: null },
    },
    {
      route: 'GET /notes/{id}',
      pathParameters: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
      query: { type: 'object', properties: { limit: { type: 'integer', maximum: 100 } } },
      responses: { 200: { $ref: '#/definitions/Note' } },
    },
    { route: 'GET /notes/latest', writtenFrom: 'this test', responses: { 200: null } },
    {
      route: 'GET /bot{token}/getMe',
      writtenFrom: 'this test',
      pathParameters: { type: 'object', properties: { token: { type: 'string', pattern: '^\\d+:' } } },
      responses: { 200: null },
    },
    {
      route: 'GET /v1/{+location}:fetchReport',
      writtenFrom: 'this test',
      pathParameters: { type: 'object', properties: { location: { type: 'string', pattern: '^locations/[^/]+$' } } },
      responses: { 200: null },
    },
  ],
};

function request(method: string, target: string, body = '', contentType = 'application/json'): SimulatedRequest {
  const url = new URL(target, 'http://simulator');
  const raw = Buffer.from(body);
  return {
    method, path: url.pathname, query: url.searchParams, headers: { 'content-type': contentType },
    text: body, raw, receivedAt: Date.now(),
  };
}

describe('OperationCheck', () => {
  const check = new OperationCheck(file);

  it('takes a request the operation describes, through references and allOf', () => {
    const verdict = check.checkRequest(request('POST', '/notes', JSON.stringify({ note: { id: 1, text: 'hi' } })));
    expect(verdict.operation?.route).toBe('POST /notes');
    expect(verdict.problems).toEqual([]);
  });

  it('refuses wrong types, missing required fields and fields no branch names', () => {
    const { problems } = check.checkRequest(request('POST', '/notes', JSON.stringify({
      note: { id: 'one', text: 'too long', txet: 'misspelled' },
    })));
    expect(problems).toContain('body.note.txet is not a field of the operation');
    expect(problems).toContain('body.note.id must be integer');
    expect(problems).toContain('body.note.text must NOT have more than 5 characters');
    expect(check.checkRequest(request('POST', '/notes', '{}')).problems)
      .toEqual(['body must have required property \'note\'']);
    expect(check.checkRequest(request('POST', '/notes', '')).problems)
      .toEqual(['the request has no body, which the operation requires']);
  });

  it('reads forms and queries as strings the schema\'s types coerce, and refuses unknown names', () => {
    const form = 'application/x-www-form-urlencoded';
    expect(check.checkRequest(request('POST', '/notes', 'text=a&tags=x&tags=y', form)).problems).toEqual([]);
    expect(check.checkRequest(request('POST', '/notes', 'text=a&tgas=x', form)).problems)
      .toEqual(['body.tgas is not a parameter of the operation']);
    expect(check.checkRequest(request('GET', '/notes/7?limit=10')).problems).toEqual([]);
    expect(check.checkRequest(request('GET', '/notes/7?limit=1000&page=2')).problems).toEqual([
      'query.page is not a parameter of the operation', 'query.limit must be <= 100',
    ]);
    expect(check.checkRequest(request('GET', '/notes/seven')).problems).toEqual(['path.id must be integer']);
  });

  it('matches literal paths before templated ones, and says when no operation matches', () => {
    expect(check.checkRequest(request('GET', '/notes/latest')).operation?.route).toBe('GET /notes/latest');
    expect(check.checkRequest(request('DELETE', '/notes/7')).operation).toBeNull();
    expect(check.checkRequest(request('GET', '/notes/latest?x=1')).problems)
      .toEqual(['query.x is not a parameter of the operation']);
  });

  it('reads a parameter that ends a segment after literal text, as Telegram\'s bot{token}', () => {
    const verdict = check.checkRequest(request('GET', '/bot123:abc/getMe'));
    expect(verdict.operation?.route).toBe('GET /bot{token}/getMe');
    expect(verdict.problems).toEqual([]);
    expect(check.checkRequest(request('GET', '/botabc/getMe')).problems)
      .toEqual(['path.token must match pattern "^\\d+:"']);
    expect(check.checkRequest(request('GET', '/123:abc/getMe')).operation).toBeNull();
  });

  it('reads a parameter followed by literal text in its segment, as Google\'s {+location}:verb', () => {
    const verdict = check.checkRequest(request('GET', '/v1/locations/12:fetchReport'));
    expect(verdict.operation?.route).toBe('GET /v1/{+location}:fetchReport');
    expect(verdict.problems).toEqual([]);
    expect(check.checkRequest(request('GET', '/v1/accounts/1/locations/12:fetchReport')).problems)
      .toEqual(['path.location must match pattern "^locations/[^/]+$"']);
    expect(check.checkRequest(request('GET', '/v1/locations/12:other')).operation).toBeNull();
  });

  it('checks an answer against its status\'s schema; an undescribed success is off the description', () => {
    const operation = file.operations[0];
    if (operation === undefined) throw new Error('no operation');
    expect(check.checkAnswer(operation, { status: 201, body: { id: 3, text: 'ok' } })).toEqual([]);
    expect(check.checkAnswer(operation, { status: 201, body: { text: 'ok' } }))
      .toEqual(['answer 201 must have required property \'id\'']);
    expect(check.checkAnswer(operation, { status: 422, body: { anything: true } })).toEqual([]);
    expect(check.checkAnswer(operation, { status: 200, body: {} }))
      .toEqual(['status 200 is not among the operation\'s answers']);
    expect(check.checkAnswer(operation, { status: 500, body: {} })).toEqual([]);
  });
});
