import { OperationCheck } from '../kit/operation-check.ts';
import type { HeldToOperations, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';

/**
 * The Google simulator held to its operations (operations.json beside this file: YouTube's Data
 * API and Business Profile's APIs, from their discovery documents and the v4 API's OpenAPI, with
 * the OAuth endpoints written). Each host refuses in its own words: the consent page and token
 * endpoint as OAuth does (`{error, error_description}`), the APIs with Google's envelope, an
 * argument it cannot take being INVALID_ARGUMENT (`errors[].reason` `invalidParameter` on YouTube,
 * the canonical status alone on Business Profile). Facts: /work/shared/platforms/oauth-majors.md
 * 7.5, design-blogging-business.md 7.5.
 */
const oauthPaths = new Set(['/o/oauth2/v2/auth', '/token']);

function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
  const message = `Invalid request: ${problems.join('; ')}`;
  if (oauthPaths.has(request.path)) {
    return { status: 400, body: { error: 'invalid_request', error_description: message } };
  }
  if (/^\/(?:upload\/)?youtube\//.test(request.path)) {
    const errors = [{ message, domain: 'global', reason: 'invalidParameter' }];
    return { status: 400, body: { error: { code: 400, message, errors, status: 'INVALID_ARGUMENT' } } };
  }
  return { status: 400, body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } };
}

export function googleOperations(): HeldToOperations {
  return { check: OperationCheck.forPlatform('google'), refuse };
}
