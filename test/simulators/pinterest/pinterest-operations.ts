import { OperationCheck } from '../kit/operation-check.ts';
import type { HeldToOperations, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';
import { invalidRequest } from './pinterest-answers.ts';
import { s3Error, uploadPath } from './pinterest-media.ts';

/**
 * The simulator held to Pinterest's operations (operations.json beside this file). The
 * description writes its paths under its server, https://api.pinterest.com/v5 (the file's
 * basePath). Two written operations keep their own paths: the consent page (www.pinterest.com/
 * oauth/, which the description names only as its securitySchemes' authorizationUrl) and the S3
 * upload host a video registration names.
 */
const apiPrefix = '/v5';

/** Each host refuses in its own words: S3's XML, the consent page's OAuth error, the API's `{code, message}`. */
function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
  const reasons = problems.join('; ');
  if (request.path === uploadPath) return s3Error(400, 'InvalidArgument', reasons);
  if (!request.path.startsWith(`${apiPrefix}/`)) {
    return { status: 400, body: { error: 'invalid_request', error_description: reasons } };
  }
  // Pinterest's code 1 is its refusal of parameters it cannot take (design-blogging-business.md 1.5).
  return invalidRequest(`Invalid parameters: ${reasons}`);
}

export function pinterestOperations(): HeldToOperations {
  return { check: OperationCheck.forPlatform('pinterest'), refuse };
}
