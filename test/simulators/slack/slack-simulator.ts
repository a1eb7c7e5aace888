import { OAuthAuthority } from '../kit/oauth-authority.ts';
import {
  bearerToken, formBody, startSimulatorServer, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { methodArguments, slackOk, slackRateLimited, slackRefused } from './slack-answers.ts';
import type { SlackCall } from './slack-call.ts';
import { SlackFileMethods, type FileSharing } from './slack-files.ts';
import { SlackMessageMethods } from './slack-messages.ts';
import { slackOperations } from './slack-operations.ts';
import { botId, botUserId, SlackRecords, type SimulatedSlackWorkspace } from './slack-records.ts';

export type { SimulatedSlackChannel, SimulatedSlackWorkspace, SlackFile, SlackMessage } from './slack-records.ts';

/**
 * A local stand-in for Slack's OAuth v2 (bot install) and the Web API methods SPS calls:
 * - slack.com `GET /oauth/v2/authorize` with comma-separated bot scopes;
 * - `POST /api/oauth.v2.access` with the client id and secret in the form or as Basic, answering
 *   `{ok, access_token, token_type: "bot", scope, bot_user_id, app_id, team: {id, name}, ...}`;
 *   bot tokens do not expire (token rotation off, Slack's default);
 * - `/api/<method>` with a Bearer token, arguments in the query, a form or (where Slack takes
 *   one) a JSON body: auth.test, conversations.list / info / join / history / replies,
 *   chat.postMessage, reactions.get (slack-messages.ts), files.getUploadURLExternal,
 *   files.completeUploadExternal and the upload URL they hand out (slack-files.ts). Each method
 *   checks the scope it needs (`missing_scope` with `needed` and `provided`).
 * Every refusal is HTTP 200 `{ok: false, error: "<code>"}`, with Slack's codes; throttling is
 * HTTP 429 with `Retry-After` (`throttleNext`). `failNext` answers a method's next calls with a
 * code, a whole answer, or acts and then drops the connection (`{lose: true}`), as when an answer
 * is lost after Slack did what was asked.
 * Requests and answers are held to Slack's description (operations.json, slack-operations.ts); a
 * request it does not allow is refused `invalid_arguments` with the reasons in response_metadata.
 * Facts: /work/shared/platforms/open-and-community.md 9.
 */
export interface RunningSlackSimulator extends RunningSimulator {
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  records: SlackRecords;
  /** How completed files are shared (delay, size limit). */
  sharing: FileSharing;
  /** `upload` stands for the upload URL; other names are Web API methods. */
  failNext(method: string, ...steps: SlackInjectedStep[]): void;
  /** The method's next call is refused with HTTP 429 `ratelimited` and this Retry-After. */
  throttleNext(method: string, retryAfterSeconds: number): void;
  /** Answers dropped on purpose (`{lose: true}`). */
  readonly lostAnswers: number;
  /** The calls a method received, with their arguments as Slack read them. */
  calls(method: string): Record<string, unknown>[];
}

/** One injected step: pass through, refuse with a code, answer this, or act and drop the answer. */
export type SlackInjectedStep = 'pass' | { error: string } | { lose: true } | SimulatedAnswer;

const clientId = '1111111111.2222222222';
const clientSecret = 'slack-simulated-secret';

/** The authority's RFC 6749 refusals in Slack's words. */
function slackTokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') return slackRefused('bad_client_secret');
  if (error === 'invalid_grant') {
    return slackRefused(/redirect_uri/.test(description) ? 'bad_redirect_uri' : 'invalid_code');
  }
  if (error === 'unsupported_grant_type') return slackRefused('invalid_grant_type');
  return slackRefused('invalid_arguments');
}

/** Slack names an unknown client id before it looks at the secret. */
function presentedClientId(request: SimulatedRequest): string | null {
  const basic = /^Basic (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (basic === undefined) return formBody(request).get('client_id');
  return decodeURIComponent(Buffer.from(basic, 'base64').toString('utf8').split(':')[0] ?? '');
}

function authTest(call: SlackCall): SimulatedAnswer {
  const { workspace } = call;
  const url = `https://${workspace.teamName.toLowerCase().replace(/\W+/g, '')}.slack.com/`;
  return slackOk({
    url, team: workspace.teamName, user: 'sps', team_id: workspace.teamId, user_id: botUserId, bot_id: botId,
  });
}

/** Workspaces are keyed by the id the authority hands out (`authority.consentingUser`). */
export async function startSlackSimulator(
  workspaces: Record<string, SimulatedSlackWorkspace>,
): Promise<RunningSlackSimulator> {
  const authority: OAuthAuthority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'basic-or-body',
    requirePkce: false,
    knownScopes: [
      'chat:write', 'chat:write.public', 'chat:write.customize', 'files:write', 'files:read', 'channels:read',
      'groups:read', 'channels:join', 'channels:history', 'groups:history', 'reactions:read', 'users:read',
    ],
    scopeSeparator: ',',
    // Bot tokens without rotation never expire: ten years stands for that here.
    accessTokenSeconds: 10 * 365 * 86_400,
    refreshTokens: 'none',
    tokenError: slackTokenError,
    tokenAnswer: (tokens) => {
      const workspace = workspaces[authority.userOf(tokens.accessToken) ?? ''];
      return {
        ok: true,
        app_id: 'A0SIMULATED',
        authed_user: { id: 'U0INSTALLER' },
        scope: tokens.scope.split(' ').join(','),
        token_type: 'bot',
        access_token: tokens.accessToken,
        bot_user_id: botUserId,
        team: { id: workspace?.teamId ?? 'T0UNKNOWN', name: workspace?.teamName ?? '' },
        enterprise: null,
        is_enterprise_install: false,
      };
    },
  });

  const records = new SlackRecords();
  let origin = '';
  const messages = new SlackMessageMethods(records);
  const files = new SlackFileMethods(records, () => origin);
  const injected = new Map<string, SlackInjectedStep[]>();
  const received: { method: string; values: Record<string, unknown> }[] = [];
  let lostAnswers = 0;

  const methods: Record<string, (call: SlackCall) => SimulatedAnswer> = {
    'auth.test': authTest,
    'conversations.list': (call) => messages.list(call),
    'conversations.info': (call) => messages.info(call),
    'conversations.join': (call) => messages.join(call),
    'conversations.history': (call) => messages.history(call),
    'conversations.replies': (call) => messages.replies(call),
    'chat.postMessage': (call) => messages.postMessage(call),
    'chat.delete': (call) => messages.deleteMessage(call),
    'reactions.get': (call) => messages.reactions(call),
    'files.getUploadURLExternal': (call) => files.getUploadUrl(call),
    'files.completeUploadExternal': (call) => files.complete(call),
  };

  /** Runs an injected step, or the real handler when none is queued for this method. */
  const withInjection = (name: string, act: () => SimulatedAnswer): SimulatedAnswer => {
    const step = injected.get(name)?.shift() ?? 'pass';
    if (step === 'pass') return act();
    if ('lose' in step && step.lose === true) {
      act();
      lostAnswers += 1;
      return { status: 200, lose: true };
    }
    if ('error' in step && typeof step.error === 'string') return slackRefused(step.error);
    return step as SimulatedAnswer;
  };

  const callMethod = (request: SimulatedRequest, name: string): SimulatedAnswer => {
    const values = methodArguments(request, name);
    received.push({ method: name, values });
    const handler = methods[name];
    if (handler === undefined) return slackRefused('unknown_method');
    // Web API tokens go in the Authorization header; JSON bodies cannot carry them at all.
    const token = bearerToken(request) ?? (typeof values.token === 'string' ? values.token : null);
    if (token === null) return slackRefused('not_authed');
    const grant = authority.grantOf(token);
    const workspace = workspaces[grant?.user ?? ''];
    if (grant === null || workspace === undefined) return slackRefused('invalid_auth');
    return withInjection(name, () => handler({ workspace, scopes: grant.scopes, values }));
  };

  const notFound: SimulatedAnswer = { status: 404, body: 'Not Found' };
  const server = await startSimulatorServer((request) => {
    if (request.path === '/oauth/v2/authorize' && request.method === 'GET') return authority.authorize(request);
    if (request.path === '/api/oauth.v2.access') {
      if (presentedClientId(request) !== clientId) return slackRefused('invalid_client_id');
      return authority.token(request);
    }
    const upload = /^\/upload\/v1\/([\w-]+)$/.exec(request.path);
    if (upload !== null) {
      received.push({ method: 'upload', values: {} });
      return withInjection('upload', () => files.upload(request, upload[1] ?? ''));
    }
    const method = /^\/api\/([\w.]+)$/.exec(request.path);
    if (method !== null) return callMethod(request, method[1] ?? '');
    return notFound;
  }, notFound, { operations: slackOperations() });
  origin = server.url;
  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    records,
    sharing: files.sharing,
    failNext: (method, ...steps) => { injected.set(method, [...(injected.get(method) ?? []), ...steps]); },
    throttleNext: (method, seconds) => {
      injected.set(method, [...(injected.get(method) ?? []), slackRateLimited(seconds)]);
    },
    get lostAnswers() { return lostAnswers; },
    calls: (method) => received.filter((call) => call.method === method).map((call) => call.values),
  };
}
