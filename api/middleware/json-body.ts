import type { Middleware } from 'koa';
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import type { AppState } from '../context.ts';
import { DomainError } from '../../shared/errors.ts';
import { payloadTooLargeMessage } from './error-handler.ts';
import { JsonNestingGauge } from './json-nesting.ts';
import { refuseNulCharacters } from '../../shared/validation/json-shape.ts';

export const bodyLimits = {
  /** The spec's limit for post creation, where callers used to inline images. */
  posts: 50 * 1024 * 1024,
  /** Everything else: generous for JSON, far below the posts limit. */
  default: 1024 * 1024,
} as const;

/**
 * Far deeper than any body a route takes (a post's settings may nest 16 levels, and are
 * refused naming the place beyond that), and far from the depths that make parsing slow: a
 * megabyte of `[` (half a million levels) kept the event loop busy for 0.5 to 0.9 s in
 * JSON.parse and the walks after it; 2,048 levels take a few milliseconds.
 */
export const maxJsonNesting = 2_048;

/** Methods whose body is read, as before: others keep no body. */
const methodsWithBody = new Set(['POST', 'PUT', 'PATCH']);

/** Only an object or an array is a body (co-body's strict mode, which this replaces). */
const startsObjectOrArray = /^[\x20\t\n\r]*[[{]/;

function notJson(reason: string, cause?: unknown): DomainError {
  const options = cause === undefined ? undefined : { cause };
  return new DomainError('invalid_json', `the request body is not valid JSON (${reason})`, undefined, options);
}

/** What undoes the body's Content-Encoding; null when it is sent as it is. */
function inflaterFor(encoding: string): Transform | null {
  if (encoding === 'identity') return null;
  if (encoding === 'gzip' || encoding === 'x-gzip') return createGunzip();
  if (encoding === 'deflate') return createInflate();
  throw new DomainError('unsupported_media_type', `the Content-Encoding "${encoding}" is not supported: `
    + 'send the body uncompressed, or gzip or deflate it');
}

/**
 * The body's bytes, read up to `limitBytes` (after decompression) while their nesting is
 * measured. A body nested too deeply is read to its end without being kept, then refused,
 * so the client reads the answer instead of a reset.
 */
function readBody(request: IncomingMessage, encoding: string, bodyLimitBytes: number): Promise<Buffer> {
  const inflater = inflaterFor(encoding);
  // A compressed body inflates to at most the default limit: a few kilobytes of gzip can stand for
  // gigabytes, and inflating the posts route's 50 MB of them kept the api from answering for 10 s.
  const limitBytes = inflater === null ? bodyLimitBytes : Math.min(bodyLimitBytes, bodyLimits.default);
  // Not stream.pipeline: on broken compressed data it would destroy the request, and with it the answer.
  if (inflater !== null) request.once('error', (error) => { inflater.destroy(error); });
  const source: Readable = inflater === null ? request : request.pipe(inflater);
  return new Promise((resolve, reject) => {
    const gauge = new JsonNestingGauge();
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (outcome: Error | Buffer): void => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      if (outcome instanceof Error) {
        // The rest of the request is read and dropped: left paused, a client still sending (a
        // compressed body past the limit) would wait on a full socket and never read the answer.
        if (inflater !== null) {
          request.unpipe(inflater);
          inflater.destroy();
        }
        request.resume();
        reject(outcome);
      } else {
        resolve(outcome);
      }
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limitBytes) {
        settle(new DomainError('payload_too_large', payloadTooLargeMessage));
        return;
      }
      if (gauge.deepest > maxJsonNesting) return;
      gauge.feed(chunk);
      chunks.push(chunk);
    };
    source.on('data', onData);
    source.once('end', () => {
      if (gauge.deepest <= maxJsonNesting) {
        settle(Buffer.concat(chunks));
        return;
      }
      const deeper = `more than ${String(maxJsonNesting)} levels deep`;
      settle(new DomainError('validation_failed', `the request body nests arrays and objects ${deeper}`, [
        { path: 'body', message: `nested ${deeper}` },
      ]));
    });
    source.once('error', (error) => { settle(notJson('the body could not be read or decompressed', error)); });
    source.once('close', () => { settle(notJson('the body did not arrive whole')); });
  });
}

/** Whether a key named `__proto__` can be in the text, spelled out or with escapes. */
const mayNamePrototype = (text: string): boolean => text.includes('__proto__') || text.includes('\\u');

/** Whether an object in the value has an own `__proto__` key (JSON.parse makes one; a later merge would pollute). */
function holdsPrototypeKey(value: unknown): boolean {
  const pending: unknown[] = [value];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next !== 'object' || next === null) continue;
    if (Object.hasOwn(next, '__proto__')) return true;
    // One by one: spreading an array of a million items would overflow the call stack.
    for (const item of Object.values(next as Record<string, unknown>)) pending.push(item);
  }
  return false;
}

function parseBody(text: string): unknown {
  if (text === '') return {};
  if (!startsObjectOrArray.test(text)) throw notJson('only an object or an array is accepted');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw notJson(error.message, error);
  }
  if (mayNamePrototype(text) && holdsPrototypeKey(value)) throw notJson('a key named "__proto__" is not accepted');
  return value;
}

/**
 * Parses a JSON body up to `limitBytes`. Every parsing failure (too large, nested too deeply,
 * malformed, a forbidden `__proto__` key, a NUL character) becomes a 4xx here; a body in
 * another format is refused with 415.
 */
export function jsonBody(limitBytes: number): Middleware<AppState> {
  return async (ctx, next) => {
    if (ctx.is('json') === false) {
      throw new DomainError('unsupported_media_type', 'send the body as JSON with Content-Type: application/json');
    }
    if (methodsWithBody.has(ctx.method)) {
      // Refused before a byte is read, as raw-body did: the declared size is over the limit.
      const declared = ctx.get('Content-Encoding') === '' ? ctx.request.length : undefined;
      if (declared !== undefined && declared > limitBytes) {
        throw new DomainError('payload_too_large', payloadTooLargeMessage);
      }
      const encoding = (ctx.get('Content-Encoding') || 'identity').trim().toLowerCase();
      const bytes = ctx.is('json') === null ? Buffer.alloc(0) : await readBody(ctx.req, encoding, limitBytes);
      // JSON.parse only makes JSON values.
      ctx.request.body = parseBody(bytes.toString('utf8')) as typeof ctx.request.body;
      refuseNulCharacters(ctx.request.body, 'body');
    }
    await next();
  };
}
