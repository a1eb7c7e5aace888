import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { multipartParts } from './multipart-form.ts';
import { operationFile, type DescribedOperation, type JsonSchema, type OperationFile } from './operation-file.ts';
import type { SimulatedAnswer, SimulatedRequest } from './simulator-server.ts';
import { UnknownFields } from './unknown-fields.ts';

/**
 * Holds one simulator to its platform's operations (operations.json in the platform's folder):
 * each request is matched to an operation and its path parameters, query and body are checked
 * against the description's schemas, unknown fields included; each answer is checked against the
 * schema of its status. A request's problems become the platform's own refusal (the simulator
 * says how it words one); an answer's problems are the simulator's own fault and fail the test
 * (conformance-log.ts).
 */
export interface RequestVerdict {
  /** The operation matched, or null when the platform describes no such route. */
  operation: DescribedOperation | null;
  problems: string[];
}

// ajv-formats is CommonJS: its module object is the plugin, which also carries itself as `default`.
const addFormats = addFormatsModule.default;

/** Formats the descriptions use that JSON Schema does not define: annotations only. */
const annotationFormats = ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password', 'snowflake',
  'uint64', 'int8', 'int16', 'uint32', 'decimal', 'url', 'html', 'color', 'timestamp'];

function newAjv(coerce: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: coerce ? 'array' : false, logger: false });
  addFormats(ajv);
  for (const format of annotationFormats) ajv.addFormat(format, true);
  return ajv;
}

function rewriteReferences(schema: unknown, definitionsId: string): unknown {
  if (Array.isArray(schema)) return schema.map((member) => rewriteReferences(member, definitionsId));
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) {
      return [key, `${definitionsId}#/$defs/${value.slice('#/definitions/'.length)}`];
    }
    return [key, rewriteReferences(value, definitionsId)];
  }));
}

export function describeErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).slice(0, 5).map((error) => {
    const at = error.instancePath === '' ? where : `${where}${error.instancePath.replaceAll('/', '.')}`;
    return `${at} ${error.message ?? 'is invalid'}${error.params.allowedValues === undefined ? ''
      : ` (${JSON.stringify(error.params.allowedValues)})`}`;
  });
}

/** URLSearchParams as the object a schema checks: a repeated name becomes a list. */
function fieldsOf(params: URLSearchParams): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of params) {
    const earlier = fields[name];
    fields[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
  }
  return fields;
}

interface CompiledRoute {
  operation: DescribedOperation;
  method: string;
  pattern: RegExp;
  names: string[];
}

function compileRoute(operation: DescribedOperation): CompiledRoute {
  const [method = '', template = ''] = operation.route.split(' ');
  const names: string[] = [];
  const literal = (text: string): string => text.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
  // `{name}` is one segment, or part of one between literal text (Telegram's `bot{token}`, Google's
  // `{+location}:fetchMultiDailyMetricsTimeSeries`); Google's `{+name}` may hold slashes.
  const source = template.split('/').map((segment) => {
    const parameter = /^([^{}]*)\{(\+?)([^{}]*)\}([^{}]*)$/.exec(segment);
    if (parameter === null) return literal(segment);
    names.push(parameter[3] ?? '');
    const value = parameter[2] === '+' ? '(.+)' : '([^/]+)';
    return `${literal(parameter[1] ?? '')}${value}${literal(parameter[4] ?? '')}`;
  }).join('/');
  return { operation, method, pattern: new RegExp(`^${source}/?$`), names };
}

const loaded = new Map<string, OperationCheck>();

export class OperationCheck {
  readonly file: OperationFile;
  private readonly routes: CompiledRoute[];
  protected readonly unknown: UnknownFields;
  private readonly lenient = newAjv(false);
  private readonly coercing = newAjv(true);
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly definitionsId: string;

  constructor(file: OperationFile) {
    this.file = file;
    this.definitionsId = `sps:operations/${file.platform}`;
    const definitions = { $id: this.definitionsId, $defs: rewriteReferences(file.definitions, this.definitionsId) };
    this.lenient.addSchema(definitions);
    this.coercing.addSchema(definitions);
    this.unknown = new UnknownFields(file.definitions);
    // Literal paths before templated ones, so /me is not taken for /{id}.
    this.routes = file.operations.map(compileRoute).sort((a, b) => a.names.length - b.names.length);
  }

  /**
   * The operations of a platform folder under test/simulators, their schemas compiled once per test
   * file: compiling on a platform's first request took 0.6 s for X's on a loaded machine, longer than
   * the adapters' request timeouts in some tests.
   */
  static forPlatform(folder: string): OperationCheck {
    return OperationCheck.forPlatformAs(folder, (file) => new OperationCheck(file));
  }

  /** The same, for a platform whose check reads its calls its own way (a subclass `make` builds). */
  static forPlatformAs<C extends OperationCheck>(folder: string, make: (file: OperationFile) => C): C {
    const known = loaded.get(folder);
    // One folder is always checked by the one kind of check its simulator names.
    if (known !== undefined) return known as C;
    const file = path.resolve(import.meta.dirname, '..', folder, 'operations.json');
    const check = make(operationFile.parse(JSON.parse(readFileSync(file, 'utf8'))));
    check.prepare();
    loaded.set(folder, check);
    return check;
  }

  /** Compiles every schema now rather than on the request that first needs it. */
  prepare(): void {
    for (const operation of this.file.operations) {
      const { pathParameters } = operation;
      if (pathParameters !== undefined) this.validator(`${operation.route} path`, pathParameters, true);
      if (operation.query !== undefined) this.validator(`${operation.route} query`, operation.query, true);
      for (const [type, schema] of Object.entries(operation.body ?? {})) {
        const json = type === 'application/json' || type.endsWith('+json');
        this.validator(`${operation.route} body ${type}`, schema, !json);
      }
      for (const [status, schema] of Object.entries(operation.responses)) {
        if (schema !== null) this.validator(`${operation.route} answer ${status}`, schema, false);
      }
    }
  }

  protected validator(key: string, schema: JsonSchema, coerce: boolean): ValidateFunction {
    const cacheKey = `${coerce ? 'c' : 'l'} ${key}`;
    const cached = this.compiled.get(cacheKey);
    if (cached !== undefined) return cached;
    const compiled = (coerce ? this.coercing : this.lenient)
      .compile(rewriteReferences(schema, this.definitionsId) as Record<string, unknown>);
    this.compiled.set(cacheKey, compiled);
    return compiled;
  }

  private checkFields(key: string, where: string, schema: JsonSchema, data: Record<string, unknown>): string[] {
    const unknown = this.unknown.find(schema, data)
      .map((field) => `${where}.${field} is not a parameter of the operation`);
    const validate = this.validator(key, schema, true);
    return validate(data) ? unknown : [...unknown, ...describeErrors(where, validate.errors)];
  }

  private checkBody(operation: DescribedOperation, request: SimulatedRequest): string[] {
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const bodies = operation.body ?? {};
    const empty = request.raw.length === 0;
    if (empty) return operation.bodyRequired === true ? ['the request has no body, which the operation requires'] : [];
    const entry = Object.entries(bodies).find(([type]) => type.toLowerCase() === contentType);
    if (entry === undefined) {
      const allowed = Object.keys(bodies);
      return allowed.length === 0 && request.method === 'GET' ? []
        : [`a ${contentType || 'untyped'} body, where the operation takes ${allowed.join(' or ') || 'no body'}`];
    }
    const [type, schema] = entry;
    const key = `${operation.route} body ${type}`;
    if (type === 'application/json' || type.endsWith('+json')) {
      let data: unknown;
      try {
        data = JSON.parse(request.text) as unknown;
      } catch {
        return ['the body is not JSON'];
      }
      const unknown = this.unknown.find(schema, data).map((field) => `body.${field} is not a field of the operation`);
      const validate = this.validator(key, schema, false);
      return validate(data) ? unknown : [...unknown, ...describeErrors('body', validate.errors)];
    }
    if (type === 'application/x-www-form-urlencoded') {
      return this.checkFields(key, 'body', schema, fieldsOf(new URLSearchParams(request.text)));
    }
    if (type === 'multipart/form-data') {
      const parts = multipartParts(request);
      if (parts === null) return ['the body is not multipart/form-data'];
      const fields: Record<string, string | string[]> = {};
      for (const part of parts) {
        // A file part is checked as present; its bytes are the simulator's to judge.
        const value = part.fileName === null ? part.data.toString('utf8') : `(file ${part.fileName})`;
        const earlier = fields[part.name];
        fields[part.name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
      }
      return this.checkFields(key, 'body', schema, fields);
    }
    return [];
  }

  checkRequest(request: SimulatedRequest): RequestVerdict {
    const { basePath } = this.file;
    // Written operations on other hosts (a consent page, an upload URL) keep their own paths.
    const under = basePath !== undefined && request.path.startsWith(`${basePath}/`);
    const path = under ? request.path.slice(basePath.length) : request.path;
    for (const route of this.routes) {
      if (route.method !== request.method) continue;
      const match = route.pattern.exec(path);
      if (match === null) continue;
      const { operation } = route;
      const problems: string[] = [];
      if (operation.pathParameters !== undefined) {
        const values = Object.fromEntries(route.names
          .map((name, index) => [name, decodeURIComponent(match[index + 1] ?? '')]));
        problems.push(...this.checkFields(`${operation.route} path`, 'path', operation.pathParameters, values));
      }
      const query: Record<string, unknown> = fieldsOf(request.query);
      for (const name of operation.commaSeparated ?? []) {
        const value = query[name];
        if (typeof value === 'string') query[name] = value.split(',');
      }
      if (operation.query !== undefined) {
        problems.push(...this.checkFields(`${operation.route} query`, 'query', operation.query, query));
      } else {
        problems.push(...Object.keys(query).map((name) => `query.${name} is not a parameter of the operation`));
      }
      problems.push(...this.checkBody(operation, request));
      return { operation, problems };
    }
    return { operation: null, problems: [] };
  }

  /** Why an answer is off the description: its status is not one the operation has, or its body misfits. */
  checkAnswer(operation: DescribedOperation, answer: SimulatedAnswer): string[] {
    if (answer.lose === true || answer.offDescription !== undefined) return [];
    const status = String(answer.status);
    const responses = operation.responses;
    const key = [status, `${status[0] ?? ''}XX`, 'default'].find((candidate) => candidate in responses);
    if (key === undefined) {
      return status.startsWith('2') ? [`status ${status} is not among the operation's answers`] : [];
    }
    const described = responses[key] ?? null;
    const body = answer.body;
    if (described === null || body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) return [];
    const validate = this.validator(`${operation.route} answer ${key}`, described, false);
    return validate(body) ? [] : describeErrors(`answer ${status}`, validate.errors);
  }
}
