import { recordOffDescription } from './conformance-log.ts';
import { describeErrors, OperationCheck, type RequestVerdict } from './operation-check.ts';
import type { DescribedOperation, JsonSchema } from './operation-file.ts';

/**
 * Holds a simulator of a platform spoken in messages rather than HTTP requests (Nostr's relays
 * and remote signers) to its operations file, with the same compiled schemas as OperationCheck:
 * `WS <type>` operations are the messages a client sends over a WebSocket, each a JSON array
 * that starts with its type, their `responses` keyed by the message types that may answer it;
 * `RPC <method>` operations are JSON-RPC requests carried inside messages, answered `result` or
 * `error`. A client's message is checked against its operation's schema, with the fields no
 * schema names refused as OperationCheck refuses them; a server's message against the schema of
 * its type. A string whose schema says it holds JSON (`contentMediaType: application/json` with a
 * `contentSchema`, annotations ajv leaves alone) is read and checked too, as the peer reads it.
 */
type SchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The messages of a WebSocket travel inside its 101 Switching Protocols answer: the status the log names. */
const messageStatus = 101;

export class MessageCheck extends OperationCheck {
  /** The operations of a platform folder under test/simulators, compiled once per test file. */
  static forMessages(folder: string): MessageCheck {
    return OperationCheck.forPlatformAs(folder, (file) => new MessageCheck(file));
  }

  /** The operation with this route (`WS REQ`), which the simulator's own messages answer. */
  operation(route: string): DescribedOperation {
    const found = this.file.operations.find((operation) => operation.route === route);
    if (found === undefined) throw new Error(`${this.file.platform} describes no ${route}`);
    return found;
  }

  /** A message a client sent: its `WS <type>` operation (null when none is described) and what is wrong with it. */
  checkClientMessage(message: unknown): RequestVerdict {
    if (!Array.isArray(message) || typeof message[0] !== 'string') {
      return { operation: null, problems: ['a message is a JSON array that starts with its type'] };
    }
    const type: string = message[0];
    const operation = this.file.operations.find((candidate) => candidate.route === `WS ${type}`);
    if (operation === undefined) return { operation: null, problems: [`no ${type} message is described`] };
    const schema = operation.body?.['application/json'] ?? true;
    const validate = this.validator(`${operation.route} body application/json`, schema, false);
    const problems = validate(message) ? [] : describeErrors('message', validate.errors);
    // A message is a tuple: each element is walked with its own schema for fields no schema names.
    const elements = isNode(schema) && Array.isArray(schema.prefixItems) ? schema.prefixItems as JsonSchema[] : [];
    const rest = isNode(schema) && schema.items !== undefined ? schema.items as JsonSchema : false;
    const unknown = message.flatMap((element: unknown, index) =>
      this.unknown.find(elements[index] ?? rest, element, `message.${String(index)}.`));
    problems.unshift(...unknown.map((field) => `${field} is not a field of the message`));
    problems.push(...this.embedded(operation.route, schema, message, 'message', true));
    return { operation, problems };
  }

  /** Why a message the server sent is off the description, answering `answering` or (null) unprompted. */
  checkServerMessage(message: unknown, answering: DescribedOperation | null): string[] {
    const type = Array.isArray(message) && typeof message[0] === 'string' ? message[0] : null;
    if (type === null) return ['a message is a JSON array that starts with its type'];
    const operation = answering ?? this.file.operations
      .find((candidate) => candidate.route.startsWith('WS ') && candidate.responses[type] !== undefined);
    const schema = operation?.responses[type];
    if (operation === undefined || schema === undefined) {
      return [`${type} is not among the answers to ${answering?.route ?? 'any message'}`];
    }
    if (schema === null) return [];
    const validate = this.validator(`${operation.route} answer ${type}`, schema, false);
    return validate(message) ? [] : describeErrors(type, validate.errors);
  }

  /** A JSON-RPC request: its `RPC <method>` operation (null when none is described) and what is wrong with it. */
  checkCall(request: unknown): RequestVerdict {
    const method = isNode(request) && typeof request.method === 'string' ? request.method : null;
    const operation = method === null ? undefined
      : this.file.operations.find((candidate) => candidate.route === `RPC ${method}`);
    if (operation === undefined) {
      return { operation: null, problems: [method === null ? 'a request names its method' : `no method ${method}`] };
    }
    const schema = operation.body?.['application/json'] ?? true;
    const validate = this.validator(`${operation.route} body application/json`, schema, false);
    const problems = this.unknown.find(schema, request).map((field) => `request.${field} is not a field of the method`);
    if (!validate(request)) problems.push(...describeErrors('request', validate.errors));
    problems.push(...this.embedded(operation.route, schema, request, 'request', true));
    return { operation, problems };
  }

  /** Why an answer to a JSON-RPC request is off the description: `error` when it carries one, else `result`. */
  checkCallAnswer(operation: DescribedOperation, answer: unknown): string[] {
    const key = isNode(answer) && typeof answer.error === 'string' && answer.error !== '' ? 'error' : 'result';
    const schema = operation.responses[key];
    if (schema === undefined) return [`an answer with ${key} is not among the answers to ${operation.route}`];
    if (schema === null) return [];
    const validate = this.validator(`${operation.route} answer ${key}`, schema, false);
    const problems = validate(answer) ? [] : describeErrors(key, validate.errors);
    return [...problems, ...this.embedded(operation.route, schema, answer, key, false)];
  }

  /**
   * The strings a schema says hold JSON, read and checked against their contentSchema (with unknown
   * fields refused when `closed`, as for a request). Walks inline properties, tuple elements, items
   * and allOf; a $ref is not followed, so such strings are written inline in the operation.
   */
  private embedded(route: string, schema: unknown, value: unknown, where: string, closed: boolean): string[] {
    if (!isNode(schema)) return [];
    const inner: string[] = [];
    for (const member of Array.isArray(schema.allOf) ? schema.allOf : []) {
      inner.push(...this.embedded(route, member, value, where, closed));
    }
    const holdsJson = schema.contentMediaType === 'application/json' && schema.contentSchema !== undefined;
    if (typeof value === 'string' && holdsJson) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        return [...inner, `${where} is not JSON`];
      }
      const content = schema.contentSchema as JsonSchema;
      const validate = this.validator(`${route} ${where} content`, content, false);
      const unknown = closed
        ? this.unknown.find(content, parsed).map((field) => `${where}.${field} is not a field`) : [];
      return [...inner, ...unknown, ...(validate(parsed) ? [] : describeErrors(where, validate.errors))];
    }
    if (Array.isArray(value)) {
      const elements = Array.isArray(schema.prefixItems) ? schema.prefixItems as unknown[] : [];
      value.forEach((element: unknown, index) => {
        const at = `${where}.${String(index)}`;
        inner.push(...this.embedded(route, elements[index] ?? schema.items, element, at, closed));
      });
    } else if (isNode(value) && isNode(schema.properties)) {
      for (const [name, member] of Object.entries(schema.properties)) {
        if (name in value) inner.push(...this.embedded(route, member, value[name], `${where}.${name}`, closed));
      }
    }
    return inner;
  }

  /** Records a message the simulator sent off the description: the test that caused it fails (conformance-log.ts). */
  recordOff(route: string, problems: string[]): void {
    if (problems.length === 0) return;
    recordOffDescription({ platform: this.file.platform, route, status: messageStatus, problems });
  }
}
