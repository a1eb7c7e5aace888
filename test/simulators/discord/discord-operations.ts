import { multipartParts } from '../kit/multipart-form.ts';
import { OperationCheck, type RequestVerdict } from '../kit/operation-check.ts';
import type { HeldToOperations, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { discordError, invalidFormBody } from './discord-world.ts';

/**
 * The simulator held to Discord's operations (operations.json beside this file), read the way
 * Discord reads a request:
 * - the API's paths sit under the description's server, /api/v10 (the file's basePath); the bot
 *   install's consent page (/oauth2/authorize) and token endpoint (/api/oauth2/token) are written
 *   operations with their own paths;
 * - a multipart body carries its JSON in a `payload_json` part beside `files[n]`
 *   (reference#uploading-files): the multipart form is checked as the description's form, and the
 *   part's JSON as the operation's JSON body, so a field the JSON may not hold is refused either way.
 */
const apiPrefix = '/api/v10';

class DiscordOperationCheck extends OperationCheck {
  override checkRequest(request: SimulatedRequest): RequestVerdict {
    const verdict = super.checkRequest(request);
    const payload = verdict.operation?.body?.['application/json'] === undefined ? undefined
      : multipartParts(request)?.find((part) => part.name === 'payload_json' && part.fileName === null);
    if (payload === undefined) return verdict;
    const text = payload.data.toString('utf8');
    const asJson: SimulatedRequest = {
      ...request,
      headers: { ...request.headers, 'content-type': 'application/json' },
      text,
      raw: payload.data,
    };
    // The path and query were checked with the form; only what the JSON adds is new.
    const inJson = super.checkRequest(asJson).problems
      .filter((problem) => !verdict.problems.includes(problem))
      .map((problem) => problem.replace(/^body\b/, 'payload_json').replace(/^the body\b/, 'payload_json'));
    return { operation: verdict.operation, problems: [...verdict.problems, ...inJson] };
  }
}

/** `body.attachments.0.id must ...` as the path Discord's `errors` mirrors: attachments > 0 > id. */
function fieldPath(problem: string): string[] {
  const field = /^(?:body|query|path|payload_json)\.(\S+)/.exec(problem)?.[1];
  return field === undefined ? ['_body'] : field.split('.');
}

/**
 * Discord's refusals: the API's 400 Invalid Form Body (50035) with the first field at fault in
 * `errors`; the token endpoint's OAuth error; the consent page's plain 400.
 */
function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
  const reasons = problems.join('; ');
  if (request.path === '/api/oauth2/token') {
    return { status: 400, body: { error: 'invalid_request', error_description: reasons } };
  }
  if (!request.path.startsWith(`${apiPrefix}/`)) return { status: 400, body: reasons };
  const [first = ''] = problems;
  if (first.startsWith('a ') || first.startsWith('the request')) return discordError(400, '400: Bad Request', 0);
  return invalidFormBody(fieldPath(first), 'BASE_TYPE_INVALID', reasons);
}

export function discordOperations(): HeldToOperations {
  return { check: OperationCheck.forPlatformAs('discord', (file) => new DiscordOperationCheck(file)), refuse };
}
