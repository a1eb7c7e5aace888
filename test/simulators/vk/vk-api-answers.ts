import { formBody, type SimulatedAnswer, type SimulatedRequest } from '../kit/simulator-server.ts';

/**
 * How api.vk.com answers a method call: always HTTP 200, with `{response}` on success and
 * `{error: {error_code, error_msg, request_params}}` on a refusal (dev.vk.com, "Errors").
 */
export const vkAnswer = (response: unknown): SimulatedAnswer => ({ status: 200, body: { response } });

export function vkError(code: number, message: string, method: string): SimulatedAnswer {
  return {
    status: 200,
    body: {
      error: {
        error_code: code,
        error_msg: message,
        request_params: [{ key: 'method', value: method }, { key: 'v', value: '5.199' }],
      },
    },
  };
}

/** The texts VK sends with the codes SPS meets (VKCOM/vk-api-schema errors.json). */
export const vkErrorText = {
  authFailed: 'User authorization failed: invalid access_token (4).',
  tooManyPerSecond: 'Too many requests per second',
  flood: 'Flood control',
  rateLimit: 'Rate limit reached',
  internal: 'Internal server error',
  accessDenied: 'Access denied',
  addPostDenied: 'Access to adding post denied',
  invalidParameter: 'One of the parameters specified was missing or invalid',
} as const;

/** A method's parameters: the query string and a form body together, as VK reads either. */
export function methodParameters(request: SimulatedRequest): URLSearchParams {
  const parameters = new URLSearchParams(request.query);
  const type = request.headers['content-type'] ?? '';
  if (request.method === 'POST' && type.startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of formBody(request)) parameters.set(name, value);
  }
  return parameters;
}

/** A whole number parameter, or null when absent or not a number. */
export function integerParameter(parameters: URLSearchParams, name: string): number | null {
  const raw = parameters.get(name);
  if (raw === null || !/^-?\d+$/.test(raw)) return null;
  return Number(raw);
}

/** VK's flags take 1 or 0 (and true/false); anything else counts as unset. */
export function flagParameter(parameters: URLSearchParams, name: string): boolean {
  const raw = parameters.get(name);
  return raw === '1' || raw === 'true';
}

/** The parts of a multipart/form-data body: field names and, for files, the file name. */
export function multipartFields(request: SimulatedRequest): { name: string; fileName: string | null }[] {
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data')) return [];
  const fields: { name: string; fileName: string | null }[] = [];
  const disposition = /Content-Disposition: form-data; name="([^"]*)"(?:; filename="([^"]*)")?/gi;
  for (const match of request.text.matchAll(disposition)) {
    fields.push({ name: match[1] ?? '', fileName: match[2] ?? null });
  }
  return fields;
}
