import { OperationCheck, type RequestVerdict } from '../kit/operation-check.ts';
import type { DescribedOperation } from '../kit/operation-file.ts';
import type { HeldToOperations, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { vkError, vkErrorText } from './vk-api-answers.ts';

/**
 * The simulator held to VK's operations (operations.json beside this file), read the way
 * api.vk.com reads a call:
 * - a list parameter is one comma-separated value (`attachments=photo1_2,video1_3`), in a form
 *   as in a query: the form's lists are split before the check, as the kit splits the query's;
 * - VK refuses with HTTP 200 and `{error}`, which the operations give as each method's `default`
 *   answer: such an answer is checked against that one, not the success's.
 * A call off the description is refused as VK refuses a bad parameter: error 100 with the
 * reasons. VK ID's endpoints refuse with an OAuth error, the upload hosts with `{error}`. The
 * upload hosts are written operations at the paths this simulator hands out as `upload_url`s
 * (`/upload/photo/{key}`, `/upload/video/{key}`); VK's own are other hosts with paths of their own.
 */
class VkOperationCheck extends OperationCheck {
  override checkRequest(request: SimulatedRequest): RequestVerdict {
    const first = super.checkRequest(request);
    const lists = first.operation?.commaSeparated ?? [];
    const type = request.headers['content-type'] ?? '';
    if (lists.length === 0 || !type.startsWith('application/x-www-form-urlencoded')) return first;
    const form = new URLSearchParams();
    for (const [name, value] of new URLSearchParams(request.text)) {
      for (const item of lists.includes(name) ? value.split(',') : [value]) form.append(name, item);
    }
    const text = form.toString();
    return super.checkRequest({ ...request, text, raw: Buffer.from(text) });
  }

  override checkAnswer(operation: DescribedOperation, answer: SimulatedAnswer): string[] {
    const body = answer.body;
    const refusal = answer.status === 200 && typeof body === 'object' && body !== null && 'error' in body
      && !('response' in body);
    if (!refusal || !('default' in operation.responses)) return super.checkAnswer(operation, answer);
    // No operation lists 599: the check falls through to the default answer.
    return super.checkAnswer(operation, { ...answer, status: 599 });
  }
}

function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
  const reasons = problems.join('; ');
  const method = /^\/method\/([\w.]+)$/.exec(request.path)?.[1];
  if (method !== undefined) return vkError(100, `${vkErrorText.invalidParameter}: ${reasons}`, method);
  if (request.path.startsWith('/upload/')) {
    return { status: 200, body: { error: `ERR_UPLOAD_BAD_REQUEST: ${reasons}` } };
  }
  if (request.path.startsWith('/oauth2/')) {
    return { status: 400, body: { error: 'invalid_request', error_description: reasons } };
  }
  return { status: 400, body: reasons };
}

export function vkOperations(): HeldToOperations {
  return { check: OperationCheck.forPlatformAs('vk', (file) => new VkOperationCheck(file)), refuse };
}
