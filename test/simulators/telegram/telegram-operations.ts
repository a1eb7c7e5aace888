import { multipartParts } from '../kit/multipart-form.ts';
import { OperationCheck, type RequestVerdict } from '../kit/operation-check.ts';
import type { JsonSchema } from '../kit/operation-file.ts';
import type { HeldToOperations, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { fail } from './telegram-params.ts';

/**
 * The simulator held to the Bot API's operations (operations.json beside this file,
 * `POST /bot{token}/<method>`), read the way the Bot API reads a multipart form:
 * - a file part another field names as `attach://<part>` (sendMediaGroup's media) is that
 *   field's file, not a parameter of its own;
 * - an object or array parameter travels JSON-serialized: it is parsed and checked as the same
 *   parameter of a JSON body, so a misspelled field inside `media` or `reply_parameters` is refused.
 * A request off the description is refused as the Bot API refuses bad parameters: 400
 * `Bad Request: ...`.
 */
const unknownParameter = (name: string): string => `body.${name} is not a parameter of the operation`;

function isNode(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The form's fields the description has as JSON-serialized text. */
function serializedFields(schema: JsonSchema | undefined): string[] {
  const properties = isNode(schema) && isNode(schema.properties) ? schema.properties : {};
  return Object.entries(properties)
    .filter(([, member]) => isNode(member) && member.contentMediaType === 'application/json')
    .map(([name]) => name);
}

class TelegramOperationCheck extends OperationCheck {
  override checkRequest(request: SimulatedRequest): RequestVerdict {
    const verdict = super.checkRequest(request);
    const parts = verdict.operation === null ? null : multipartParts(request);
    if (verdict.operation === null || parts === null) return verdict;
    const texts = parts.filter((part) => part.fileName === null);
    const attached = new Set(texts.flatMap((part) =>
      [...part.data.toString('utf8').matchAll(/attach:\/\/([^"\s]+)/g)].map((match) => match[1] ?? '')));
    const problems = verdict.problems.filter((problem) =>
      ![...attached].some((name) => problem === unknownParameter(name)));
    const json: Record<string, unknown> = {};
    for (const name of serializedFields(verdict.operation.body?.['multipart/form-data'])) {
      const part = texts.find((candidate) => candidate.name === name);
      if (part === undefined) continue;
      try {
        json[name] = JSON.parse(part.data.toString('utf8')) as unknown;
      } catch {
        // The Bot API refuses a parameter it cannot parse ("can't parse ... JSON object").
        problems.push(`body.${name} is not JSON`);
      }
    }
    const names = Object.keys(json);
    if (names.length === 0) return { operation: verdict.operation, problems };
    const text = JSON.stringify(json);
    const asJson: SimulatedRequest = {
      ...request,
      headers: { ...request.headers, 'content-type': 'application/json' },
      text,
      raw: Buffer.from(text),
    };
    // Only what the parsed fields hold: the rest of the form (required chat_id...) was checked above.
    const inside = super.checkRequest(asJson).problems
      .filter((problem) => names.some((name) => new RegExp(`^body\\.${name}[ .]`).test(problem)));
    return { operation: verdict.operation, problems: [...problems, ...inside] };
  }
}

function refuse(problems: string[]): SimulatedAnswer {
  return fail(400, `Bad Request: ${problems.join('; ')}`);
}

export function telegramOperations(): HeldToOperations {
  return { check: OperationCheck.forPlatformAs('telegram', (file) => new TelegramOperationCheck(file)), refuse };
}
