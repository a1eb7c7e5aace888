import { OperationCheck, type RequestVerdict } from '../kit/operation-check.ts';
import type { HeldToOperations, SimulatedAnswer, SimulatedRequest } from '../kit/simulator-server.ts';

/**
 * The simulator held to WordPress's operations (operations.json beside this file), read the way
 * WordPress finds a REST route: at `<folder>/wp-json/<route>` under pretty permalinks, or at
 * `<folder>/?rest_route=<route>` (also `/index.php?rest_route=`) always. Both name the one
 * operation: the check reads the route out of either before matching, and leaves `rest_route`
 * out of the query it checks, as WordPress does. Whatever the folder the site lives in.
 * WordPress looks only at the arguments a route registers: the operations keep queries and bodies
 * open, so an unknown parameter passes here as it does there (6.1.9 answers `?bogus=1` with 200).
 * A request off the description is refused as rest_validate_request_arg refuses one: 400
 * `rest_invalid_param`, naming each parameter in `data.params`.
 */
export function wordpressRestRoute(request: SimulatedRequest): { path: string; query: URLSearchParams } | null {
  const route = request.query.get('rest_route');
  if (route !== null && /\/(?:index\.php)?$/.test(request.path)) {
    const query = new URLSearchParams(request.query);
    query.delete('rest_route');
    return { path: route, query };
  }
  const at = request.path.indexOf('/wp-json/');
  return at < 0 ? null : { path: request.path.slice(at + '/wp-json'.length), query: request.query };
}

class WordpressOperationCheck extends OperationCheck {
  override checkRequest(request: SimulatedRequest): RequestVerdict {
    const route = wordpressRestRoute(request);
    return route === null ? { operation: null, problems: [] } : super.checkRequest({ ...request, ...route });
  }
}

/** `query.context must be equal to one of the allowed values` names the parameter `context`. */
function parameterOf(problem: string): string | null {
  return /^(?:query|body)\.([^.\s]+)/.exec(problem)?.[1] ?? null;
}

export function refuseAsWordpress(problems: string[]): SimulatedAnswer {
  if (problems.includes('the body is not JSON')) {
    const body = { code: 'rest_invalid_json', message: 'Invalid JSON body passed.', data: { status: 400 } };
    return { status: 400, body };
  }
  const params: Record<string, string> = {};
  for (const problem of problems) {
    const name = parameterOf(problem) ?? 'request';
    params[name] = params[name] === undefined ? problem : `${params[name]}; ${problem}`;
  }
  const message = `Invalid parameter(s): ${Object.keys(params).join(', ')}`;
  return { status: 400, body: { code: 'rest_invalid_param', message, data: { status: 400, params } } };
}

export function wordpressOperations(refuse: HeldToOperations['refuse']): HeldToOperations {
  return { check: OperationCheck.forPlatformAs('wordpress', (file) => new WordpressOperationCheck(file)), refuse };
}
