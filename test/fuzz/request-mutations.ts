import { gzipSync } from 'node:zlib';
import {
  invalidUtf8String, hugeString, mutateJson, serialiseNode, wholeBodyJunk, type JsonBudget,
} from './hostile-json.ts';
import type { RawRequest } from './raw-http.ts';
import type { Random } from './seeded-random.ts';

export type BodySpec =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: [string, string][] }
  | { kind: 'multipart'; field: string; fileName: string; contentType: string; bytes: Buffer };

/** A valid request to one route, before the fuzzer spoils it. */
export interface RequestTemplate {
  method: string;
  /** Koa-style path, e.g. `/api/public/v1/posts/:id`. */
  path: string;
  params: Record<string, string>;
  query: [string, string][];
  /** Credentials and cookies; framing headers (Host, Content-Type, Content-Length) are added here. */
  headers: [string, string][];
  body: BodySpec;
}

/** Ids of the fuzzing organization, so generated junk includes near misses (upper-case ids). */
export interface ReferenceIds { channelId: string; mediaId: string }

export interface MutatedRequest { request: RawRequest; what: string[] }

/** Path segments that break decoders: malformed or overlong percent-encoding, traversal, raw bytes. */
function junkSegment(random: Random, valid: string): Buffer {
  const options: (() => Buffer | string)[] = [
    () => '%', () => '%E0%A4%A', () => '%ZZ', () => '%00', () => '%2e%2e%2f%2e%2e%2fetc', () => '..', () => '%C0%AF',
    () => '%uD800',
    () => valid.toUpperCase(), () => `${valid}%20`, () => `${valid}.json`, () => `${valid};x=1`, () => '%25',
    () => 'é', () => '💥',
    () => Buffer.from([0xff, 0xfe, 0x41]), () => Buffer.from([0xc3, 0x28]),
    () => 'x'.repeat(random.pick([101, 3_000, 20_000])),
    () => '0'.repeat(24), () => 'ffffffffffffffffffffffff', () => '000000000000000000000000x', () => '$gt',
    () => '__proto__', () => '%2F',
  ];
  const made = random.pick(options)();
  return typeof made === 'string' ? Buffer.from(made) : made;
}

/** Query values that break parsers and schemas. */
function junkQueryValue(random: Random): Buffer {
  const options: (() => Buffer | string)[] = [
    () => '', () => '%', () => '%E0%A4%A', () => '%ZZ', () => '%00', () => '-1', () => '1e400',
    () => '99999999999999999999999', () => 'NaN',
    () => 'null', () => '[object Object]', () => '2024-02-30T25:61:00Z', () => '+275760-09-13T00:00:01Z',
    () => '-271821-04-20', () => '0x10',
    () => 'q'.repeat(random.pick([3_000, 20_000])), () => Buffer.from([0xff, 0x3d]), () => '%C3%28', () => 'a&b=c',
    () => '1.5',
  ];
  const made = random.pick(options)();
  return typeof made === 'string' ? Buffer.from(made) : made;
}

function buildTarget(
  random: Random,
  template: RequestTemplate,
  what: string[],
  mutatePath: boolean,
  mutateQuery: boolean,
): Buffer {
  const parts: Buffer[] = [];
  for (const piece of template.path.split(/(:[A-Za-z]+)/)) {
    if (!piece.startsWith(':')) { parts.push(Buffer.from(piece)); continue; }
    const valid = template.params[piece.slice(1)] ?? '';
    if (mutatePath && random.chance(0.7)) {
      const junk = junkSegment(random, valid);
      parts.push(junk);
      what.push(`param ${piece} = ${junk.toString('latin1').slice(0, 30)}`);
    } else {
      parts.push(Buffer.from(encodeURIComponent(valid)));
    }
  }
  let query: [Buffer, Buffer][] = template.query.map(([key, value]) => [
    Buffer.from(encodeURIComponent(key)), Buffer.from(encodeURIComponent(value)),
  ]);
  if (mutateQuery) {
    const roll = random.int(6);
    const known = template.query.map(([key]) => key);
    const key = Buffer.from(known.length > 0 && random.chance(0.7)
      ? encodeURIComponent(random.pick(known))
      : random.pick([
        'customer', 'group', 'page', 'date', 'startDate', 'code', 'state', 'client_id', '__proto__', 'a[b]', 'x[]',
      ]));
    if (roll === 0 && query.length > 0) {
      query.splice(random.int(query.length), 1);
      what.push('query key dropped');
    } else if (roll === 1) {
      query.push([key, junkQueryValue(random)], [key, junkQueryValue(random)]);
      what.push(`query ${key.toString()} repeated`);
    } else if (roll === 2) {
      query = [[Buffer.from(random.pick(['%', '%E0%A4%A', '&&&', '=', '=='])), Buffer.from('')], ...query];
      what.push('query junk key');
    } else {
      const value = junkQueryValue(random);
      query = query.filter(([existing]) => !existing.equals(key));
      query.push([key, value]);
      what.push(`query ${key.toString()}=${value.toString('latin1').slice(0, 20)}`);
    }
  }
  if (query.length > 0) {
    parts.push(Buffer.from('?'));
    query.forEach(([key, value], index) => {
      parts.push(Buffer.from(index === 0 ? '' : '&'), key, Buffer.from('='), value);
    });
  }
  return Buffer.concat(parts);
}

function formBytes(fields: [string, string][]): Buffer {
  return Buffer.from(new URLSearchParams(fields).toString());
}

function mutateForm(random: Random, fields: [string, string][], budget: JsonBudget): { bytes: Buffer; what: string } {
  const roll = random.int(7);
  const name = fields.length > 0 ? random.pick(fields)[0] : 'x';
  if (roll === 6) {
    return {
      bytes: Buffer.concat([formBytes(fields.filter(([key]) => key !== name)), Buffer.from(`&${name}=a%00b`)]),
      what: `form ${name} with NUL`,
    };
  }
  if (roll === 0) {
    return {
      bytes: formBytes(fields.map(([key, value]) => [key, key === name ? hugeString(random, budget) : value])),
      what: `form ${name} huge`,
    };
  }
  if (roll === 1) {
    return {
      bytes: Buffer.concat([formBytes(fields), Buffer.from(`&${name}=%E0%A4%A&${name}=%`)]),
      what: `form ${name} bad percent-encoding, repeated`,
    };
  }
  if (roll === 2) {
    return {
      bytes: Buffer.concat([
        formBytes(fields.filter(([key]) => key !== name)), Buffer.from(`&${name}=`), Buffer.from([0xff, 0xc3, 0x28]),
      ]),
      what: `form ${name} invalid UTF-8`,
    };
  }
  if (roll === 3) {
    return {
      bytes: Buffer.concat([formBytes(fields), Buffer.from(`&${name}[]=1&${name}[a]=2&__proto__[x]=1&constructor=1`)]),
      what: 'form bracket keys',
    };
  }
  if (roll === 4) {
    return {
      bytes: Buffer.from(Array.from({ length: 3_000 }, (_, index) => `f${index}=${index}`).join('&')),
      what: 'form many fields',
    };
  }
  return { bytes: formBytes(fields.filter(([key]) => key !== name)), what: `form ${name} missing` };
}

const crlf = '\r\n';

function multipartBytes(
  spec: Extract<BodySpec, { kind: 'multipart' }>,
  boundary: string,
  options: { fileName?: Buffer; field?: string; closing?: boolean; extraParts?: number } = {},
): Buffer {
  const part = (field: string, fileName: Buffer): Buffer => Buffer.concat([
    Buffer.from(`--${boundary}${crlf}Content-Disposition: form-data; name="${field}"; filename="`), fileName,
    Buffer.from(`"${crlf}Content-Type: ${spec.contentType}${crlf}${crlf}`), spec.bytes, Buffer.from(crlf),
  ]);
  const pieces: Buffer[] = [];
  for (let index = 0; index < (options.extraParts ?? 0); index += 1) {
    pieces.push(Buffer.from(
      `--${boundary}${crlf}Content-Disposition: form-data; name="f${index}"${crlf}${crlf}v${crlf}`,
    ));
  }
  pieces.push(part(options.field ?? spec.field, options.fileName ?? Buffer.from(spec.fileName)));
  if (options.closing !== false) pieces.push(Buffer.from(`--${boundary}--${crlf}`));
  return Buffer.concat(pieces);
}

function mutateMultipart(
  random: Random,
  spec: Extract<BodySpec, { kind: 'multipart' }>,
  boundary: string,
): { bytes: Buffer; contentType: string; what: string } {
  const contentType = `multipart/form-data; boundary=${boundary}`;
  const roll = random.int(7);
  if (roll === 0) {
    return { bytes: multipartBytes(spec, boundary, { closing: false }), contentType, what: 'multipart not closed' };
  }
  if (roll === 1) {
    return {
      bytes: multipartBytes(spec, boundary, { field: random.pick(['', 'files', 'file[]', 'FILE']) }),
      contentType,
      what: 'multipart other field',
    };
  }
  if (roll === 2) {
    const name = random.pick([
      Buffer.from('../../etc/passwd'), Buffer.from('x'.repeat(5_000)), Buffer.from([0xff, 0xfe]), Buffer.from('a"b'),
      Buffer.from('%E0%A4%A'),
    ]);
    return { bytes: multipartBytes(spec, boundary, { fileName: name }), contentType, what: 'multipart odd file name' };
  }
  if (roll === 3) {
    return {
      bytes: multipartBytes(spec, boundary, { extraParts: random.pick([25, 40]) }),
      contentType,
      what: 'multipart many parts',
    };
  }
  if (roll === 4) {
    return { bytes: multipartBytes(spec, 'another-boundary'), contentType, what: 'multipart wrong boundary' };
  }
  if (roll === 5) {
    return {
      bytes: multipartBytes(spec, boundary),
      contentType: random.pick([
        'multipart/form-data', 'multipart/form-data; boundary=', `multipart/form-data; boundary="${'b'.repeat(200)}"`,
        'multipart/mixed; boundary=x',
      ]),
      what: 'multipart odd Content-Type',
    };
  }
  const whole = multipartBytes(spec, boundary);
  return { bytes: whole.subarray(0, random.int(whole.length)), contentType, what: 'multipart truncated' };
}

interface Body { bytes: Buffer; contentType: string | null }

function validBody(spec: BodySpec, boundary: string): Body {
  switch (spec.kind) {
    case 'none': return { bytes: Buffer.alloc(0), contentType: null };
    case 'json': return { bytes: Buffer.from(JSON.stringify(spec.value)), contentType: 'application/json' };
    case 'form': return { bytes: formBytes(spec.fields), contentType: 'application/x-www-form-urlencoded' };
    case 'multipart': return {
      bytes: multipartBytes(spec, boundary), contentType: `multipart/form-data; boundary=${boundary}`,
    };
  }
}

function mutateBody(
  random: Random,
  spec: BodySpec,
  boundary: string,
  reference: ReferenceIds,
  budget: JsonBudget,
  what: string[],
): Body {
  switch (spec.kind) {
    case 'none': {
      const junk = random.chance(0.5)
        ? wholeBodyJunk(random)
        : { bytes: serialiseNode(invalidUtf8String(random)), what: 'invalid UTF-8' };
      what.push(`unexpected body: ${junk.what}`);
      return { bytes: junk.bytes, contentType: 'application/json' };
    }
    case 'json': {
      if (random.chance(0.15)) {
        const junk = wholeBodyJunk(random);
        what.push(`body ${junk.what}`);
        return { bytes: junk.bytes, contentType: 'application/json' };
      }
      const mutated = mutateJson(random, spec.value, reference, budget);
      what.push(...mutated.what.map((item) => `json ${item}`));
      return { bytes: mutated.bytes, contentType: 'application/json' };
    }
    case 'form': {
      const mutated = mutateForm(random, spec.fields, budget);
      what.push(mutated.what);
      return { bytes: mutated.bytes, contentType: 'application/x-www-form-urlencoded' };
    }
    case 'multipart': {
      const mutated = mutateMultipart(random, spec, boundary);
      what.push(mutated.what);
      return { bytes: mutated.bytes, contentType: mutated.contentType };
    }
  }
}

function chunked(bytes: Buffer, random: Random): Buffer {
  const pieces: Buffer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const size = Math.min(bytes.length - offset, random.between(1, Math.max(1, Math.ceil(bytes.length / 3))));
    pieces.push(Buffer.from(`${size.toString(16)}\r\n`), bytes.subarray(offset, offset + size), Buffer.from('\r\n'));
    offset += size;
  }
  pieces.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(pieces);
}

/** 64 MB of spaces in 64 KB: made once, it is the same bytes every time. */
let gzipBomb: Buffer | null = null;
const bomb = (): Buffer => (gzipBomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)));

type Headers = [string, Buffer][];
const header = (name: string, value: string | Buffer): [string, Buffer] => [
  name, typeof value === 'string' ? Buffer.from(value, 'latin1') : value,
];

/** Rewrites the framing and content headers, and the credentials, in one of many odd ways. */
function mutateHeaders(
  random: Random,
  headers: Headers,
  body: Buffer,
  what: string[],
): { headers: Headers; body: Buffer } {
  const without = (name: string): Headers => headers.filter(
    ([existing]) => existing.toLowerCase() !== name.toLowerCase(),
  );
  const roll = random.int(13);
  switch (roll) {
    case 0: {
      const type = random.pick(['', 'text/plain', 'application/json; charset=utf-16',
        'application/json; charset=latin1', 'application/json; charset=nope',
        'application/json;;;', 'application/x-www-form-urlencoded', 'multipart/form-data', 'application/vnd.api+json',
        'application/json, text/plain', '*/*',
        `application/json; ${'p=1; '.repeat(2_000)}`, 'application/json; charset="']);
      what.push(`Content-Type: ${type.slice(0, 40)}`);
      return { headers: [...without('Content-Type'), header('Content-Type', type)], body };
    }
    case 1: what.push('no Content-Type'); return { headers: without('Content-Type'), body };
    case 2: {
      // Never more than is sent: a server waiting for promised bytes is right to wait.
      const length = random.pick([
        'abc', '-1', '1e3', ` ${body.length}`, '99999999999999999999', '0', String(Math.max(0, body.length - 1)),
        `${body.length}, ${body.length + 1}`,
      ]);
      what.push(`Content-Length: ${length}`);
      return { headers: [...without('Content-Length'), header('Content-Length', length)], body };
    }
    case 3:
      what.push('Content-Length twice');
      return { headers: [...headers, header('Content-Length', String(body.length + 3))], body };
    case 4:
      what.push('chunked');
      return {
        headers: [...without('Content-Length'), header('Transfer-Encoding', 'chunked')], body: chunked(body, random),
      };
    case 5: {
      const variant = random.pick([
        'chunked with Content-Length', 'bad chunk size', 'gzip, chunked', 'identity', 'chunked, chunked',
      ]);
      what.push(`Transfer-Encoding: ${variant}`);
      if (variant === 'chunked with Content-Length') {
        return { headers: [...headers, header('Transfer-Encoding', 'chunked')], body: chunked(body, random) };
      }
      if (variant === 'bad chunk size') {
        return {
          headers: [...without('Content-Length'), header('Transfer-Encoding', 'chunked')],
          body: Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]),
        };
      }
      return {
        headers: [...without('Content-Length'), header('Transfer-Encoding', variant)],
        body: variant === 'identity' ? body : chunked(body, random),
      };
    }
    case 6: {
      const encoding = random.pick(['gzip', 'deflate', 'br', 'x-unknown', 'gzip-bomb', 'gzip-valid']);
      what.push(`Content-Encoding: ${encoding}`);
      const encoded = encoding === 'gzip-bomb' ? bomb() : encoding === 'gzip-valid' ? gzipSync(body) : body;
      const name = encoding.startsWith('gzip') ? 'gzip' : encoding;
      return {
        headers: [
          ...without('Content-Length'), header('Content-Encoding', name),
          header('Content-Length', String(encoded.length)),
        ],
        body: encoded,
      };
    }
    case 7: {
      const options: [string, Headers][] = [
        ['no Authorization', without('Authorization')],
        ['empty Authorization', [...without('Authorization'), header('Authorization', '')]],
        ['Bearer alone', [...without('Authorization'), header('Authorization', 'Bearer')]],
        ['Basic', [...without('Authorization'), header('Authorization', 'Basic Zm9vOmJhcg==')]],
        ['huge Authorization', [...without('Authorization'), header('Authorization', `Bearer ${'k'.repeat(12_000)}`)]],
        ['Latin-1 Authorization', [
          ...without('Authorization'), header('Authorization', Buffer.from([0x42, 0xe9, 0xff, 0x20, 0x73])),
        ]],
        ['Authorization twice', [...headers, header('Authorization', 'sps_not-a-key')]],
        ['token-shaped junk', [
          ...without('Authorization'),
          header('Authorization', random.pick(['sps_', 'pos_', 'sps_%00', `Bearer  sps_${'0'.repeat(43)}`])),
        ]],
      ];
      const [label, next] = random.pick(options);
      what.push(label);
      return { headers: next, body };
    }
    case 8: {
      const host = random.pick(['', 'a b', '[::1', 'x'.repeat(5_000), 'localhost:99999', 'évil.example']);
      what.push(`Host: ${host.slice(0, 20)}`);
      return {
        headers: random.chance(0.2) ? [...headers, header('Host', host)] : [...without('Host'), header('Host', host)],
        body,
      };
    }
    case 9: what.push('no Host'); return { headers: without('Host'), body };
    case 10: {
      const [name, value] = random.pick<[string, string]>([['Expect', '100-continue'], ['Expect', 'junk'],
        ['Accept', 'x/y;q=junk'], ['Accept-Charset', 'utf-16'],
        ['Cookie', '%E0%A4%A=%; a=b=c; ;;'], ['X-Forwarded-For', '1.2.3.4, junk, ::1'],
        ['Range', 'bytes=99999999999999999999-1'], ['Range', 'bytes=-0,5-1'],
        ['If-None-Match', '*'], ['Accept-Encoding', 'gzip;q=junk'], ['X-Request-Id', 'x'.repeat(4_000)],
        ['Origin', 'null']]);
      what.push(`${name}: ${value.slice(0, 30)}`);
      return { headers: [...headers, header(name, value)], body };
    }
    case 11: {
      const huge = random.chance(0.5);
      what.push(huge ? 'one huge header' : 'many headers');
      if (huge) return { headers: [...headers, header('X-Padding', 'p'.repeat(70_000))], body };
      return {
        headers: [...headers, ...Array.from({ length: 2_500 }, (_, index) => header(`X-H${index}`, 'v'))],
        body,
      };
    }
    default: {
      const [name, value] = random.pick<[string, Buffer]>([
        ['X-Bad\u00ff', Buffer.from('v')], ['X-Null', Buffer.from('a\u0000b')], ['X Space', Buffer.from('v')],
        ['X-Utf8', Buffer.from('é💥')],
      ]);
      what.push(`odd header ${JSON.stringify(name)}`);
      return { headers: [...headers, [name, value]], body };
    }
  }
}

/**
 * Spoils one to three aspects of a valid request (path parameters, query, body, headers,
 * method), keeping the rest valid so the request reaches the code behind the first checks.
 */
export function mutateRequest(
  random: Random,
  template: RequestTemplate,
  reference: ReferenceIds,
  budget: JsonBudget,
): MutatedRequest {
  const what: string[] = [];
  const boundary = `----sps-fuzz-${random.int(1e9).toString(36)}`;
  const hasParams = Object.keys(template.params).length > 0;
  const aspects = new Set<string>();
  const available = ['body', 'body', 'headers', 'query', ...(hasParams ? ['path'] : [])];
  const count = random.between(1, 2);
  while (aspects.size < count) aspects.add(random.pick(available));

  const target = buildTarget(random, template, what, aspects.has('path'), aspects.has('query'));
  const body = aspects.has('body')
    ? mutateBody(random, template.body, boundary, reference, budget, what)
    : validBody(template.body, boundary);
  let headers: Headers = [header('Host', '127.0.0.1'), ...template.headers.map(([name, value]) => header(name, value))];
  if (body.contentType !== null) headers.push(header('Content-Type', body.contentType));
  if (body.bytes.length > 0 || template.method !== 'GET') {
    headers.push(header('Content-Length', String(body.bytes.length)));
  }
  headers.push(header('Connection', 'close'));
  let bytes = body.bytes;
  if (aspects.has('headers')) ({ headers, body: bytes } = mutateHeaders(random, headers, bytes, what));
  let method = template.method;
  if (random.chance(0.04)) {
    method = random.pick(['HEAD', 'OPTIONS', 'PATCH', 'TRACE', 'PROPFIND', 'get', 'G\u00e9T']);
    what.push(`method ${method}`);
  }
  return { request: { method, target, headers, body: bytes }, what };
}
