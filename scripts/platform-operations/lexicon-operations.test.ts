import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../test/simulators/kit/operation-file.ts';
import { genericXrpcErrors, lexiconOperations } from './lexicon-operations.ts';

/** A lexicon folder cut to what the reader meets: a procedure, a query, defs across files, unions, blobs. */
const lexicons: Record<string, unknown> = {
  'x.example.createThing': {
    lexicon: 1, id: 'x.example.createThing',
    defs: {
      main: {
        type: 'procedure',
        description: 'Makes a thing.',
        input: {
          encoding: 'application/json',
          schema: {
            type: 'object',
            required: ['name'],
            nullable: ['note'],
            properties: {
              name: { type: 'string', maxLength: 64, maxGraphemes: 32, minGraphemes: 1 },
              note: { type: 'string' },
              owner: { type: 'string', format: 'did' },
              when: { type: 'string', format: 'datetime' },
              count: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
              kind: { type: 'string', knownValues: ['a', 'b'] },
              embed: { type: 'union', refs: ['#image', 'lex:x.example.defs#link'] },
              pick: { type: 'union', refs: ['#image'], closed: true },
              picture: { type: 'blob', accept: ['image/*'], maxSize: 1000 },
              raw: { type: 'bytes' },
              root: { type: 'cid-link' },
              extra: { type: 'unknown' },
              tags: { type: 'array', items: { type: 'string' }, maxLength: 3 },
            },
          },
        },
        output: { encoding: 'application/json', schema: { type: 'ref', ref: 'x.example.defs#thingView' } },
        errors: [{ name: 'NameTaken' }],
      },
      image: { type: 'object', required: ['alt'], properties: { alt: { type: 'string' } } },
    },
  },
  'x.example.getThing': {
    lexicon: 1, id: 'x.example.getThing',
    defs: {
      main: {
        type: 'query',
        parameters: {
          type: 'params', required: ['actor'],
          properties: { actor: { type: 'string', format: 'at-identifier' }, limit: { type: 'integer', maximum: 100 } },
        },
        output: { encoding: 'application/json', schema: { type: 'ref', ref: 'lex:x.example.defs#thingView' } },
      },
    },
  },
  'x.example.refresh': {
    lexicon: 1, id: 'x.example.refresh',
    defs: {
      main: { type: 'procedure', output: { encoding: 'application/json', schema: { type: 'object', properties: {} } } },
    },
  },
  'x.example.defs': {
    lexicon: 1, id: 'x.example.defs',
    defs: {
      thingView: {
        type: 'object',
        required: ['uri'],
        properties: {
          uri: { type: 'string', format: 'at-uri' },
          state: { type: 'ref', ref: '#stateOpen' },
          source: { type: 'ref', ref: 'x.example.source' },
        },
      },
      link: { type: 'object', properties: { href: { type: 'string', format: 'uri' } } },
      stateOpen: { type: 'token', description: 'Open.' },
    },
  },
  'x.example.source': {
    lexicon: 1, id: 'x.example.source',
    defs: {
      main: {
        type: 'record', key: 'tid', record: { type: 'object', properties: { cid: { type: 'string', format: 'cid' } } },
      },
    },
  },
};

let root = '';

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'sps-lexicons-'));
  for (const [nsid, content] of Object.entries(lexicons)) {
    writeFileSync(path.join(root, `${nsid}.json`), JSON.stringify(content));
  }
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function compiler(definitions: Record<string, JsonSchema>): (schema: JsonSchema) => (data: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormatsModule.default(ajv);
  ajv.addSchema({ $id: 'lex', $defs: definitions });
  const local = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema)
    .replaceAll('"#/definitions/', '"lex#/$defs/'));
  return (schema) => {
    const validate = ajv.compile(local(schema) as Record<string, unknown>);
    return (data) => validate(data);
  };
}

describe('lexiconOperations', () => {
  const derived = () => lexiconOperations(root, ['x.example.createThing', 'x.example.getThing', 'x.example.refresh']);

  it('routes procedures as POST and queries as GET under /xrpc/', () => {
    expect(derived().operations.map((operation) => operation.route)).toEqual([
      'POST /xrpc/x.example.createThing', 'GET /xrpc/x.example.getThing', 'POST /xrpc/x.example.refresh',
    ]);
  });

  it('takes the parameters as an open query schema, with the formats as patterns', () => {
    const query = derived().operations[1]?.query as Record<string, unknown>;
    expect(query).toMatchObject({ type: 'object', required: ['actor'], additionalProperties: true });
    const validate = compiler({})(query);
    expect(validate({ actor: 'alice.bsky.social' })).toBe(true);
    expect(validate({ actor: 'did:plc:alice123', other: 'x' })).toBe(true);
    expect(validate({ actor: 'not a handle' })).toBe(false);
  });

  it('takes the input as a required body under its encoding, objects open, lengths kept where safe', () => {
    const [create, , refresh] = derived().operations;
    expect(create?.bodyRequired).toBe(true);
    const body = create?.body?.['application/json'] as { properties: Record<string, unknown> };
    expect(body).toMatchObject({ type: 'object', required: ['name'], additionalProperties: true });
    expect(body.properties.name).toEqual({ type: 'string', maxLength: 64, minLength: 1 });
    expect(body.properties.note).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(body.properties.when).toEqual({ type: 'string', format: 'date-time' });
    expect(body.properties.count).toEqual({ type: 'integer', minimum: 1, maximum: 10, default: 1 });
    expect(body.properties.kind).toEqual({ type: 'string' });
    expect(body.properties.tags).toEqual({ type: 'array', items: { type: 'string' }, maxItems: 3 });
    expect(refresh?.body).toBeUndefined();
  });

  it('answers 200 with the output and 4XX with the XRPC error body, naming the method\'s errors', () => {
    const [create, get] = derived().operations;
    expect(create?.responses['200']).toEqual({ $ref: '#/definitions/x.example.defs:thingView' });
    expect(get?.responses['200']).toEqual({ $ref: '#/definitions/x.example.defs:thingView' });
    const error = create?.responses['4XX'] as { properties: { error: { enum: string[] } } };
    expect(error.properties.error.enum).toEqual(['NameTaken', ...genericXrpcErrors]);
    const validate = compiler({})(error);
    expect(validate({ error: 'InvalidRequest', message: 'no' })).toBe(true);
    expect(validate({ error: 'Nope' })).toBe(false);
  });

  it('gathers referenced definitions by lexicon name: tokens as constants, records as their object', () => {
    const { definitions } = derived();
    expect(Object.keys(definitions)).toEqual([
      'blob', 'x.example.createThing:image', 'x.example.defs:link', 'x.example.defs:stateOpen',
      'x.example.defs:thingView', 'x.example.source',
    ]);
    expect(definitions['x.example.defs:stateOpen']).toEqual({ type: 'string', const: 'x.example.defs#stateOpen' });
    expect(definitions['x.example.source']).toMatchObject({ type: 'object', properties: { cid: { type: 'string' } } });
  });

  it('keeps a union open to unknown $types unless it is closed', () => {
    const { operations, definitions } = derived();
    const body = operations[0]?.body?.['application/json'] as { properties: Record<string, JsonSchema> };
    const open = compiler(definitions)(body.properties.embed ?? {});
    const closed = compiler(definitions)(body.properties.pick ?? {});
    expect(open({ $type: 'x.example.createThing#image', alt: 'a cat' })).toBe(true);
    expect(open({ $type: 'x.example.createThing#image' })).toBe(false);
    expect(open({ $type: 'x.example.defs#link', href: 'https://example.org' })).toBe(true);
    expect(open({ $type: 'x.other.thing', anything: 1 })).toBe(true);
    expect(open({ alt: 'no $type' })).toBe(false);
    expect(closed({ $type: 'x.example.createThing#image', alt: 'a cat' })).toBe(true);
    expect(closed({ $type: 'x.other.thing' })).toBe(false);
  });

  it('writes blob, bytes, cid-link and unknown as the data model carries them in JSON', () => {
    const { operations, definitions } = derived();
    const body = operations[0]?.body?.['application/json'] as { properties: Record<string, JsonSchema> };
    const check = compiler(definitions);
    const cid = 'bafkreibme22gw2h7y2h7tg2fhqotaqjucnbc24deqo72b6mkl2egezxhvy';
    expect(check(body.properties.picture ?? {})({ $type: 'blob', ref: { $link: cid }, mimeType: 'image/png', size: 9 }))
      .toBe(true);
    expect(check(body.properties.picture ?? {})({ cid, mimeType: 'image/png' })).toBe(true);
    expect(check(body.properties.picture ?? {})({ $type: 'blob', mimeType: 'image/png' })).toBe(false);
    expect(check(body.properties.raw ?? {})({ $bytes: 'AAEC' })).toBe(true);
    expect(check(body.properties.root ?? {})({ $link: cid })).toBe(true);
    expect(check(body.properties.extra ?? {})({ any: 'object' })).toBe(true);
    expect(check(body.properties.extra ?? {})('a string')).toBe(false);
  });

  it('lists the lexicon files it read, for the fingerprint, and fails on a method that is not one', () => {
    expect(derived().filesRead?.map((file) => path.basename(file))).toEqual([
      'x.example.createThing.json', 'x.example.defs.json', 'x.example.source.json', 'x.example.getThing.json',
      'x.example.refresh.json',
    ]);
    expect(() => lexiconOperations(root, ['x.example.defs'])).toThrow('lexicon x.example.defs has no definition main');
    expect(() => lexiconOperations(root, ['x.example.source'])).toThrow('x.example.source is a record');
  });
});
