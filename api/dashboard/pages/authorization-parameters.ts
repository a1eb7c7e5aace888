import { z } from 'zod';
import type { AuthorizationParameters } from '../../../shared/domain/oauth/authorization-request.ts';
import { html, type SafeHtml } from '../html.ts';

/** A repeated parameter arrives as an array; RFC 6749 §3.1 forbids repeats, so it counts as absent. */
const single = z.string().optional().catch(undefined);

const rawParameters = z.object({
  client_id: single,
  response_type: single,
  state: single,
  redirect_uri: single,
  code_challenge: single,
  code_challenge_method: single,
  scope: single,
  resource: single,
}).catch({});

/** The optional parameters, in the order they are written back into the form and the address. */
const optionalNames = [
  'state', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'scope', 'resource',
] as const;

/** RFC 6749 §3.1: a parameter sent without a value is treated as omitted. */
const present = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);

/**
 * The authorization request from the query (GET) or the consent form that repeats it (POST). The
 * form's client_id and response_type are trimmed as they always were; every other value is kept
 * byte for byte, since redirect_uri and code_challenge are compared exactly.
 */
export function authorizationParameters(raw: unknown, options: { trimIds: boolean }): AuthorizationParameters {
  const parsed = rawParameters.parse(raw);
  const id = (value: string | undefined): string => (options.trimIds ? (value ?? '').trim() : value ?? '');
  return {
    clientId: id(parsed.client_id),
    responseType: id(parsed.response_type),
    state: present(parsed.state),
    redirectUri: present(parsed.redirect_uri),
    codeChallenge: present(parsed.code_challenge),
    codeChallengeMethod: present(parsed.code_challenge_method),
    scope: present(parsed.scope),
    resource: present(parsed.resource),
  };
}

function optionalValues(parameters: AuthorizationParameters): [string, string | null][] {
  const values: Record<(typeof optionalNames)[number], string | null> = {
    state: parameters.state,
    redirect_uri: parameters.redirectUri,
    code_challenge: parameters.codeChallenge,
    code_challenge_method: parameters.codeChallengeMethod,
    scope: parameters.scope,
    resource: parameters.resource,
  };
  return optionalNames.map((name) => [name, values[name]]);
}

/** The consent page's own address for these parameters, to come back to after logging in. */
export function consentPath(parameters: AuthorizationParameters): string {
  const query = new URLSearchParams({ client_id: parameters.clientId, response_type: parameters.responseType });
  for (const [name, value] of optionalValues(parameters)) if (value !== null) query.set(name, value);
  return `/oauth/authorize?${query.toString()}`;
}

/** Hidden inputs that carry the request through the consent form, so the approval is checked as the request was. */
export function parameterFields(parameters: AuthorizationParameters): SafeHtml {
  const optional = optionalValues(parameters)
    .filter((entry): entry is [string, string] => entry[1] !== null)
    .map(([name, value]) => html`
  <input type="hidden" name="${name}" value="${value}">`);
  return html`<input type="hidden" name="client_id" value="${parameters.clientId}">
  <input type="hidden" name="response_type" value="${parameters.responseType}">${optional}`;
}
