import { OAuthAuthority, type IssuedTokens } from '../kit/oauth-authority.ts';
import { OperationCheck } from '../kit/operation-check.ts';
import {
  bearerToken, type RunningSimulator, type SimulatedAnswer, type SimulatedRequest,
} from '../kit/simulator-server.ts';
import { apiError } from './linkedin-answers.ts';
import { LinkedinPublishing } from './linkedin-publishing.ts';
import type { Caller } from './linkedin-records.ts';
import { startLinkedinServer, type RawRequest } from './linkedin-server.ts';

/**
 * A local stand-in for LinkedIn's OAuth 2.0 endpoints (www.linkedin.com/oauth/v2), the OpenID
 * Connect userinfo and the versioned organization look-ups of api.linkedin.com, serving both
 * `linkedin` (members) and `linkedin-page` (organizations): one app, one authority. LinkedIn
 * takes the client id and secret in the form body (no Basic), needs no PKCE in the web flow,
 * separates scopes with spaces, issues 60-day access tokens and, only to apps approved for
 * programmatic refresh tokens, a refresh token that keeps its value (and its 365-day life) when
 * used. Every /rest call must name a LinkedIn-Version and, for List() parameters, Rest.li 2.0.
 * Publishing (uploads, posts, comments, statistics) is linkedin-publishing.ts; upload URLs are
 * served on the same origin under /dms-uploads, standing in for LinkedIn's upload hosts.
 * Facts: ../shared/platforms/oauth-majors.md, section 2.
 */
export interface SimulatedLinkedinMember {
  sub: string;
  name: string;
  given_name: string;
  family_name: string;
  picture: string;
  email: string;
}

export interface SimulatedOrganization {
  id: number;
  localizedName: string;
  vanityName: string;
  /** Members (by sub) holding the role, and the role. */
  roles: { sub: string; role: 'ADMINISTRATOR' | 'CONTENT_ADMIN' | 'ANALYST'; state: 'APPROVED' | 'REQUESTED' }[];
}

export interface LinkedinSimulatorOptions {
  /** Apps approved for programmatic refresh tokens (Marketing Developer Platform partners) get one. */
  programmaticRefresh?: boolean;
  /**
   * Whose operations the simulator is held to: a member's (posts as urn:li:person, the userinfo
   * read) or a Page's (posts as urn:li:organization, the organization and statistics reads).
   */
  platform?: 'linkedin' | 'linkedin-page';
}

export interface LinkedinSimulator extends RunningSimulator {
  /** Every request, with its body's bytes. */
  received: RawRequest[];
  authority: OAuthAuthority;
  clientId: string;
  clientSecret: string;
  addMember(member: SimulatedLinkedinMember): void;
  addOrganization(organization: SimulatedOrganization): void;
  /** Posts, comments, uploads, injected failures and statistics. */
  publishing: LinkedinPublishing;
}

const clientId = 'linkedin-client-id';
const clientSecret = 'linkedin-client-secret';

const knownScopes = [
  'openid', 'profile', 'email', 'w_member_social', 'r_basicprofile', 'r_organization_admin', 'rw_organization_admin',
  'w_organization_social', 'r_organization_social', 'r_member_postAnalytics', 'r_member_profileAnalytics',
];

const invalidToken = apiError(401, 'Invalid access token', { serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN' });

/** The accessToken endpoint's refusals, in LinkedIn's words. */
function tokenError(error: string, description: string): SimulatedAnswer {
  if (error === 'invalid_client') {
    return { status: 401, body: { error, error_description: 'Client authentication failed' } };
  }
  if (error === 'invalid_grant' && /refresh token/i.test(description)) {
    return { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } };
  }
  if (error === 'invalid_grant') {
    const said = 'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. '
      + 'Or authorization code expired. Or external member binding exists';
    return { status: 400, body: { error: 'invalid_request', error_description: said } };
  }
  return { status: 400, body: { error, error_description: description } };
}

function tokenAnswer(tokens: IssuedTokens): unknown {
  return {
    access_token: tokens.accessToken,
    expires_in: tokens.expiresIn,
    scope: tokens.scope.split(' ').join(','),
    token_type: 'Bearer',
    ...(tokens.refreshToken === null
      ? {}
      : { refresh_token: tokens.refreshToken, refresh_token_expires_in: 31_536_000 }),
  };
}

/**
 * A request LinkedIn's documentation does not allow, refused in LinkedIn's words: the OAuth
 * endpoints with `{error, error_description}`, a body's fields with 422 and one inputError each
 * (oauth-majors.md 2.5), a query or path parameter with 400 ILLEGAL_ARGUMENT.
 */
function refuse(problems: string[], request: SimulatedRequest): SimulatedAnswer {
  const reasons = problems.join('; ');
  if (request.path.startsWith('/oauth/v2/')) {
    return { status: 400, body: { error: 'invalid_request', error_description: reasons } };
  }
  if (!problems.every((problem) => problem.startsWith('body'))) {
    return apiError(400, reasons, { code: 'ILLEGAL_ARGUMENT' });
  }
  const inputErrors = problems.map((problem) => ({
    code: 'INVALID_VALUE',
    description: problem,
    input: { inputPath: { fieldPath: /^body\.?(\S*)/.exec(problem)?.[1] ?? '' } },
  }));
  const errorDetailType = 'com.linkedin.common.error.BadRequest';
  return { status: 422, body: { status: 422, message: reasons, errorDetailType, errorDetails: { inputErrors } } };
}

/** The versioned API refuses a call without an active version, or List() without Rest.li 2.0. */
function versionRefusal(request: SimulatedRequest): SimulatedAnswer | null {
  const version = request.headers['linkedin-version'];
  if (typeof version !== 'string' || version === '') {
    return apiError(400, 'A version must be present. Please specify a version by adding the LinkedIn-Version header.', {
      code: 'VERSION_MISSING',
    });
  }
  // Versions live about a year; this simulator takes 2025 and later, in YYYYMM form.
  if (!/^20\d{4}$/.test(version) || version < '202501') {
    return apiError(426, `Requested version ${version} is not active`, { code: 'NONEXISTENT_VERSION' });
  }
  if (request.headers['x-restli-protocol-version'] !== '2.0.0') {
    return apiError(400, 'Rest.li protocol version 2.0.0 is required', { code: 'ILLEGAL_ARGUMENT' });
  }
  return null;
}

/** `List(1,2)` as Rest.li 2.0 writes a batch of ids. */
function listIds(value: string | null): number[] | null {
  const match = /^List\(([\d,]*)\)$/.exec(value ?? '');
  if (match === null) return null;
  return (match[1] ?? '').split(',').filter((id) => id !== '').map(Number);
}

export async function startLinkedinSimulator(options: LinkedinSimulatorOptions = {}): Promise<LinkedinSimulator> {
  const authority = new OAuthAuthority({
    clientId,
    clientSecret,
    clientAuthentication: 'body',
    requirePkce: false,
    knownScopes,
    accessTokenSeconds: 5_184_000,
    refreshTokens: options.programmaticRefresh === true ? 'reuse' : 'none',
    tokenError,
    tokenAnswer,
  });
  const members = new Map<string, SimulatedLinkedinMember>();
  const organizations = new Map<number, SimulatedOrganization>();

  function organizationAcls(request: SimulatedRequest, member: SimulatedLinkedinMember): SimulatedAnswer {
    const query = request.query;
    if (query.get('q') !== 'roleAssignee') {
      return apiError(400, 'Invalid query parameter q', { code: 'ILLEGAL_ARGUMENT' });
    }
    const role = query.get('role');
    const state = query.get('state');
    const start = Number(query.get('start') ?? '0');
    const count = Number(query.get('count') ?? '10');
    const all = [...organizations.values()].flatMap((organization) => organization.roles
      .filter((held) => held.sub === member.sub)
      .filter((held) => (role === null || held.role === role) && (state === null || held.state === state))
      .map((held) => ({
        roleAssignee: `urn:li:person:${member.sub}`,
        state: held.state,
        role: held.role,
        organization: `urn:li:organization:${String(organization.id)}`,
      })));
    const paging = { start, count, links: [], total: all.length };
    return { status: 200, body: { paging, elements: all.slice(start, start + count) } };
  }

  function organizationsBatch(request: SimulatedRequest): SimulatedAnswer {
    const ids = listIds(request.query.get('ids'));
    if (ids === null) return apiError(400, 'Invalid ids parameter', { code: 'ILLEGAL_ARGUMENT' });
    const results: Record<string, unknown> = {};
    const statuses: Record<string, number> = {};
    const errors: Record<string, unknown> = {};
    for (const id of ids) {
      const found = organizations.get(id);
      statuses[String(id)] = found === undefined ? 404 : 200;
      if (found === undefined) errors[String(id)] = { status: 404, message: `Organization ${String(id)} not found` };
      else results[String(id)] = { id: found.id, localizedName: found.localizedName, vanityName: found.vanityName };
    }
    return { status: 200, body: { results, statuses, errors } };
  }

  const publishing = new LinkedinPublishing();

  function callerOf(request: RawRequest): Caller | null {
    const grant = authority.grantOf(bearerToken(request));
    if (grant === null || !members.has(grant.user)) return null;
    const roles = new Map<number, string>();
    for (const organization of organizations.values()) {
      const held = organization.roles.find((role) => role.sub === grant.user && role.state === 'APPROVED');
      if (held !== undefined) roles.set(organization.id, held.role);
    }
    return { sub: grant.user, scopes: grant.scopes, roles };
  }

  const server = await startLinkedinServer((request) => {
    if (request.method === 'GET' && request.path === '/oauth/v2/authorization') return authority.authorize(request);
    if (request.path === '/oauth/v2/accessToken') return authority.token(request);
    if (request.path.startsWith('/dms-uploads/')) return publishing.upload(request, callerOf);
    const isApi = request.path === '/v2/userinfo' || request.path.startsWith('/rest/');
    if (!isApi) return undefined;
    if (request.path.startsWith('/rest/')) {
      const refusal = versionRefusal(request);
      if (refusal !== null) return refusal;
    }
    const member = members.get(authority.userOf(bearerToken(request)) ?? '');
    const caller = callerOf(request);
    if (member === undefined || caller === null) return invalidToken;
    const origin = `http://${request.headers.host ?? '127.0.0.1'}`;
    const published = publishing.handle(request, caller, origin);
    if (published !== undefined) return published;
    if (request.method !== 'GET') return undefined;
    if (request.path === '/v2/userinfo') {
      const { sub, name, given_name: givenName, family_name: familyName, picture, email } = member;
      const locale = { country: 'US', language: 'en' };
      const body = {
        sub, email_verified: true, name, locale, given_name: givenName, family_name: familyName, email, picture,
      };
      return { status: 200, body };
    }
    if (request.path === '/rest/organizationAcls') return organizationAcls(request, member);
    if (request.path === '/rest/organizations') return organizationsBatch(request);
    return undefined;
  }, apiError(404, 'Resource not found', { serviceErrorCode: 0 }), {
    check: OperationCheck.forPlatform(options.platform ?? 'linkedin'),
    refuse,
  });

  return {
    ...server,
    authority,
    clientId,
    clientSecret,
    addMember: (member) => { members.set(member.sub, member); },
    addOrganization: (organization) => { organizations.set(organization.id, organization); },
    publishing,
  };
}
