import { z } from 'zod';
import { linkedinErrorMessage, linkedinProvider, linkedinRestHeaders } from '../linkedin-family/linkedin-provider.ts';
import { refreshAccessToken } from '../kit/oauth2.ts';
import type {
  ConnectContext, OAuthConnect, PlatformApp, UserTokens, VerifiedAccount,
} from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import {
  encodeLinkedinPageCredential, encodeLinkedinPageRefresh, readLinkedinPageRefresh,
} from './credential.ts';

/**
 * LinkedIn Pages: the member authorizes the same LinkedIn app with the organization scopes
 * (Community Management API), then picks which of the pages they administer become channels.
 * Facts: ../shared/platforms/oauth-majors.md, section 2.
 */
// r_organization_admin lists the pages the member administers (and their statistics);
// w_organization_social posts, comments and likes as them; r_organization_social reads their
// posts and comments, which is how a retry finds a post whose answer was lost.
const pageScopes = ['r_organization_admin', 'w_organization_social', 'r_organization_social'];
const pageProvider = (app: PlatformApp) => linkedinProvider(app, 'linkedin-page', pageScopes);

const aclPage = z.object({
  elements: z.array(z.object({ organization: z.string(), role: z.string().optional(), state: z.string().optional() })),
  paging: z.object({ total: z.number().optional() }).loose().optional(),
});

const organizationBatch = z.object({
  results: z.record(
    z.string(),
    z.object({ localizedName: z.string().optional(), vanityName: z.string().optional() }).loose(),
  ),
});

/** ACL pages this large keep the calls few; an id batch this large keeps the URL short. */
const aclPageSize = 100;
const idBatchSize = 50;
const organizationId = /^urn:li:organization:(\d+)$/;

function malformed(what: string): PlatformError {
  const message = `LinkedIn answered ${what} in an unknown shape`;
  return new PlatformError({ kind: 'permanent', provider: 'linkedin-page', message });
}

async function administeredOrganizations(accessToken: string, context: ConnectContext): Promise<string[]> {
  const found = new Set<string>();
  for (let start = 0; ; start += aclPageSize) {
    const paging = `start=${String(start)}&count=${String(aclPageSize)}`;
    const query = `q=roleAssignee&role=ADMINISTRATOR&state=APPROVED&${paging}`;
    const body = await platformRequest({
      provider: 'linkedin-page',
      method: 'GET',
      url: `${context.app.apiUrl}/rest/organizationAcls?${query}`,
      headers: linkedinRestHeaders(accessToken),
      timeoutMs: context.timeoutMs,
      errorMessage: linkedinErrorMessage,
    });
    const parsed = aclPage.safeParse(body);
    if (!parsed.success) throw malformed('the organization roles');
    for (const { organization } of parsed.data.elements) {
      if (organizationId.test(organization)) found.add(organization);
    }
    const total = parsed.data.paging?.total;
    const more = total === undefined ? parsed.data.elements.length === aclPageSize : start + aclPageSize < total;
    if (!more) return [...found];
  }
}

async function organizationNames(ids: string[], accessToken: string, context: ConnectContext) {
  const names = new Map<string, { localizedName?: string; vanityName?: string }>();
  for (let at = 0; at < ids.length; at += idBatchSize) {
    const batch = ids.slice(at, at + idBatchSize);
    const body = await platformRequest({
      provider: 'linkedin-page',
      method: 'GET',
      url: `${context.app.apiUrl}/rest/organizations?ids=List(${batch.join(',')})`,
      headers: linkedinRestHeaders(accessToken),
      timeoutMs: context.timeoutMs,
      errorMessage: linkedinErrorMessage,
    });
    const parsed = organizationBatch.safeParse(body);
    if (!parsed.success) throw malformed('the organizations');
    for (const [id, organization] of Object.entries(parsed.data.results)) names.set(id, organization);
  }
  return names;
}

export const linkedinPageConnect: OAuthConnect = {
  kind: 'oauth2',
  provider: pageProvider,

  async accounts(tokens, context) {
    const organizations = await administeredOrganizations(tokens.accessToken, context);
    const ids = organizations.map((urn) => organizationId.exec(urn)?.[1] ?? '');
    const names = await organizationNames(ids, tokens.accessToken, context);
    const accounts = organizations.map((organization, index): VerifiedAccount => {
      const id = ids[index] ?? '';
      const details = names.get(id);
      return {
        accountId: organization,
        // An administered page LinkedIn would not describe is still offered, under its id.
        name: details?.localizedName ?? `LinkedIn Page ${id}`,
        username: details?.vanityName ?? null,
        // The logo is a digital media asset URN; turning it into a URL takes the Images API.
        picture: null,
        instanceUrl: null,
        accessToken: encodeLinkedinPageCredential({ accessToken: tokens.accessToken, organization }),
        refreshToken: tokens.refreshToken === null
          ? null
          : encodeLinkedinPageRefresh({ refreshToken: tokens.refreshToken, organization }),
        expiresAt: tokens.expiresAt,
      };
    });
    return { pick: true, accounts };
  },

  /**
   * The RFC 6749 refresh grant on the member's refresh token, re-bound to the page: the stored
   * tokens carry the organization, which the renewed ones must keep for publishing.
   */
  async refresh(stored, context): Promise<UserTokens> {
    const { refreshToken, organization } = readLinkedinPageRefresh(stored);
    const { clientId, clientSecret } = context.app;
    if (clientId === null) {
      const message = 'LINKEDIN_PAGE_CLIENT_ID is not set';
      throw new PlatformError({ kind: 'retryable', provider: 'linkedin-page', message });
    }
    const client = { clientId, clientSecret };
    const options = { timeoutMs: context.timeoutMs, now: context.now?.() };
    const renewed = await refreshAccessToken(pageProvider(context.app), client, refreshToken, options);
    return {
      accessToken: encodeLinkedinPageCredential({ accessToken: renewed.accessToken, organization }),
      refreshToken: encodeLinkedinPageRefresh({ refreshToken: renewed.refreshToken ?? refreshToken, organization }),
      expiresAt: renewed.expiresAt,
    };
  },
};
