import { OperationCheck } from '../kit/operation-check.ts';
import type { DescribedOperation } from '../kit/operation-file.ts';
import type { HeldToOperations, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { slackRefused } from './slack-answers.ts';

/**
 * The simulator held to Slack's Web API operations (operations.json beside this file), read the
 * way Slack's description is written:
 * - its paths sit under its `basePath`, /api (the operation file's too): `/api/chat.postMessage` is
 *   its `/chat.postMessage` (the consent page and the upload URL are written operations of their own);
 * - Slack refuses with HTTP 200 and `{ok: false, error}`, which the description writes as each
 *   method's `default` answer: such an answer is checked against that one, not the success's.
 */
const basePath = '/api';

class SlackOperationCheck extends OperationCheck {
  override checkAnswer(operation: DescribedOperation, answer: SimulatedAnswer): string[] {
    const body = answer.body;
    const refusal = answer.status === 200 && typeof body === 'object' && body !== null && 'ok' in body
      && body.ok === false;
    if (!refusal || !('default' in operation.responses)) return super.checkAnswer(operation, answer);
    // No description lists 599: the check falls through to the default answer.
    return super.checkAnswer(operation, { ...answer, status: 599 });
  }
}

/**
 * A request off the description is refused as Slack refuses arguments it cannot take: HTTP 200,
 * `invalid_arguments`, and what was wrong in `response_metadata.messages`. The consent page and
 * the upload host are not the Web API: they answer 400.
 */
function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
  if (!request.path.startsWith(`${basePath}/`)) return { status: 400, body: problems.join('; ') };
  const messages = problems.map((problem) => `[ERROR] ${problem}`);
  return slackRefused('invalid_arguments', { response_metadata: { messages } });
}

export function slackOperations(): HeldToOperations {
  return { check: OperationCheck.forPlatformAs('slack', (file) => new SlackOperationCheck(file)), refuse };
}
