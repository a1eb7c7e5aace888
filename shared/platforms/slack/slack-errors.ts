import { z } from 'zod';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';

export const provider = 'slack';

/**
 * Slack's refusal: `{ok: false, error: "<code>"}`, sent with HTTP 200 for everything but
 * throttling (HTTP 429, `Retry-After`); `missing_scope` adds the scopes `needed` and `provided`.
 */
export const slackRefusalBody = z.object({
  ok: z.literal(false),
  error: z.string().min(1),
  needed: z.string().optional(),
}).loose();

/** Codes with which Slack says the token no longer works for this app: the workspace must be connected again. */
const deadToken = new Set([
  'invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'invalid_refresh_token', 'no_permission',
  'team_access_not_granted', 'ekm_access_denied', 'not_allowed_token_type', 'missing_scope',
]);

/**
 * Slack's own trouble or throttling: the same call can succeed later. `fatal_error` is the code
 * Slack's reference lists among every method's errors (there is no `fatal`).
 */
const transient = new Set([
  'ratelimited', 'rate_limited', 'message_limit_exceeded', 'fatal_error', 'internal_error', 'service_unavailable',
  'request_timeout',
]);

/**
 * How long a throttled call without `Retry-After` waits: `rate_limited` and
 * `message_limit_exceeded` come with HTTP 200 and name no reset, and Slack's limits are counted
 * per minute (open-and-community.md 9.7).
 */
export const throttleWithoutResetMs = 60_000;

/** What a user can do about a refusal, for the codes whose name alone does not say it. */
const explanations: Readonly<Record<string, string>> = {
  not_in_channel: 'the Slack app is not a member of this channel; invite it to the channel '
    + '(or, for a public channel, use the joinChannel tool) and publish again',
  channel_not_found: 'Slack does not know this channel, or it is private and the app was not invited to it',
  is_archived: 'the channel is archived',
  msg_too_long: 'the text is longer than Slack takes (40,000 characters)',
  no_text: 'a Slack message needs text or a file',
  restricted_action: 'the workspace does not let the app post in this channel',
  restricted_action_read_only_channel: 'the channel is read-only',
  restricted_action_thread_only_channel: 'the channel takes replies in threads only',
  restricted_action_non_threadable_channel: 'the channel has no threads, so later parts cannot be replies',
  thread_not_found: 'the message this part answers is no longer in the channel',
  message_not_found: 'the message is no longer in the channel',
  method_not_supported_for_channel_type: 'only public channels can be joined; invite the app to a private one',
  file_upload_size_restricted: 'the file is larger than the workspace takes',
  file_uploads_disabled: 'the workspace does not allow file uploads',
  file_type_not_allowed: 'the workspace does not allow this type of file',
  storage_limit_reached: 'the workspace has no storage left for files',
  invalid_auth: 'the workspace no longer accepts the app\'s token; connect it again',
  token_revoked: 'the app was removed from the workspace; connect it again',
  account_inactive: 'the app\'s bot user was deactivated; connect the workspace again',
  token_expired: 'the app\'s token expired; connect the workspace again',
  ratelimited: 'Slack is throttling the app',
};

/** A definite answer from Slack that it did not do what was asked: nothing was made by the call. */
export class SlackRefusal extends PlatformError {
  readonly code: string;

  constructor(init: {
    method: string;
    code: string;
    kind: PlatformErrorKind;
    httpStatus: number;
    retryAfterMs: number | null;
    needed?: string | undefined;
    body: unknown;
  }) {
    const needed = init.needed === undefined
      ? null
      : `the app's token lacks ${init.needed}; connect the workspace again to grant it`;
    const why = needed ?? explanations[init.code];
    const said = why === undefined ? init.code : `${why} (${init.code})`;
    super({
      kind: init.kind,
      provider,
      httpStatus: init.httpStatus,
      retryAfterMs: init.retryAfterMs,
      body: init.body,
      message: `Slack ${init.method}: ${said}`,
    });
    this.name = 'SlackRefusal';
    this.code = init.code;
  }
}

/**
 * What SPS does about a code. `token_expired` only exists with token rotation, where a refresh
 * token renews it; a workspace connected without one must be connected again.
 */
export function slackErrorKind(code: string, canRefresh: boolean): PlatformErrorKind {
  if (code === 'token_expired') return canRefresh ? 'refresh_token' : 'disconnected';
  if (deadToken.has(code)) return 'disconnected';
  if (transient.has(code)) return 'retryable';
  return 'permanent';
}

/** A refusal as Slack sent it, classified on its code whatever the HTTP status. */
export function slackRefusal(
  method: string,
  body: z.infer<typeof slackRefusalBody>,
  answer: { httpStatus: number; retryAfterMs: number | null; canRefresh: boolean },
): SlackRefusal {
  const kind = slackErrorKind(body.error, answer.canRefresh);
  const throttled = body.error === 'rate_limited' || body.error === 'message_limit_exceeded'
    || body.error === 'ratelimited';
  return new SlackRefusal({
    method,
    code: body.error,
    kind,
    httpStatus: answer.httpStatus,
    retryAfterMs: answer.retryAfterMs ?? (throttled ? throttleWithoutResetMs : null),
    needed: body.error === 'missing_scope' ? body.needed ?? 'a scope' : undefined,
    body,
  });
}

export function unreadable(method: string, kind: PlatformErrorKind = 'permanent'): PlatformError {
  return unreadableAnswer(provider, `Slack answered ${method} in a way`, { kind });
}
