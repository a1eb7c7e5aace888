import type { SimulatedAnswer } from '../kit/simulator-server.ts';

/**
 * Google Business Profile's refusals as its APIs send them: `{error: {code, message, status,
 * details}}` with the canonical status and typed details (ErrorInfo with a reason and quota
 * metadata, the v4 API's ValidationError naming refused fields). Facts:
 * /work/shared/platforms/design-blogging-business.md 7.5 and 7.7.
 */

const typeBase = 'type.googleapis.com/';

export function statusError(code: number, status: string, message: string, details: unknown[] = []): SimulatedAnswer {
  return { status: code, body: { error: { code, message, status, ...(details.length === 0 ? {} : { details }) } } };
}

function errorInfo(reason: string, metadata: Record<string, string>): unknown {
  return { '@type': `${typeBase}google.rpc.ErrorInfo`, reason, domain: 'googleapis.com', metadata };
}

export interface FieldRefusal {
  /** The refused field as the v4 API names it (`summary`, `event.schedule.end_date`, `media[0].source_url`). */
  field: string;
  message: string;
}

/** INVALID_ARGUMENT with the v4 API's ValidationError: one entry per refused field. */
export function invalidArgument(...fields: FieldRefusal[]): SimulatedAnswer {
  const errorDetails = fields.map(({ field, message }) => ({ code: 3, field, message }));
  return statusError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
    { '@type': `${typeBase}google.mybusiness.v4.ValidationError`, errorDetails },
  ]);
}

/** The Google account does not manage the location (any more). */
export const permissionDenied = statusError(403, 'PERMISSION_DENIED', 'The caller does not have permission');

export const scopeInsufficient = statusError(
  403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.',
  [errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT', {
    service: 'mybusiness.googleapis.com', method: 'google.mybusiness.v4.LocalPosts.CreateLocalPost',
  })],
);

/** The operator's Google Cloud project has not enabled the API. */
export const serviceDisabled = statusError(
  403, 'PERMISSION_DENIED',
  'Google My Business API has not been used in project 123456789 before or it is disabled. Enable it by visiting '
    + 'https://console.developers.google.com/apis/api/mybusiness.googleapis.com/overview?project=123456789 then '
    + 'retry.',
  [errorInfo('SERVICE_DISABLED', { service: 'mybusiness.googleapis.com', consumer: 'projects/123456789' })],
);

export const notFound = statusError(404, 'NOT_FOUND', 'Requested entity was not found.');

/**
 * A spent per-minute quota; `limit` is the project's requests per minute, "0" until Google
 * approves the project for the Business Profile APIs.
 */
export function resourceExhausted(limit = '300'): SimulatedAnswer {
  const message = 'Quota exceeded for quota metric \'Requests\' and limit \'Requests per minute\' of service '
    + '\'mybusiness.googleapis.com\' for consumer \'project_number:123456789\'.';
  return statusError(429, 'RESOURCE_EXHAUSTED', message, [errorInfo('RATE_LIMIT_EXCEEDED', {
    quota_metric: 'mybusiness.googleapis.com/default_requests',
    quota_limit: 'DefaultRequestsPerMinutePerProject',
    quota_limit_value: limit,
    consumer: 'projects/123456789',
    service: 'mybusiness.googleapis.com',
  })]);
}
