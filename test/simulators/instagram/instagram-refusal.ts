import type { SimulatedAnswer } from '../kit/simulator-server.ts';
import { graphError } from '../facebook/meta-graph-simulation.ts';

/**
 * Meta's envelope as Instagram fills it for containers and media: HTTP 400, a code, a 2207xxx
 * subcode, and a title and message written for the user (Meta's Instagram error codes page).
 */
export function instagramRefusal(
  message: string,
  codes: { code: number; subcode: number },
  user: { title?: string; message: string },
): SimulatedAnswer {
  const answer = graphError(message, codes.code, { subcode: codes.subcode });
  const body = answer.body as { error: Record<string, unknown> };
  Object.assign(body.error, { is_transient: false, error_user_title: user.title ?? '', error_user_msg: user.message });
  return answer;
}
