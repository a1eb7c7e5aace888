import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import {
  startLinkedinPageSimulator, type LinkedinPageSimulator,
} from '../../../test/simulators/linkedin-page/linkedin-page-simulator.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import { exchangeAuthorizationCode } from '../kit/oauth2.ts';
import type { ConnectContext, UserTokens } from '../kit/platform-connect.ts';
import { linkedinPageConnect } from './connect.ts';
import { readLinkedinPageCredential, readLinkedinPageRefresh } from './credential.ts';
import { platformFailure } from '../../../test/simulators/kit/connect-context.ts';


let sim: LinkedinPageSimulator;
let context: ConnectContext;

function contextWith(clientSecret: string): ConnectContext {
  return {
    app: { clientId: sim.clientId, clientSecret, apiUrl: sim.url, authUrl: sim.url, tokenUrl: sim.url, botToken: null },
    timeoutMs: 5_000,
    userHosts: connectionPolicyFor(true),
  };
}

function renew(refreshToken: string | null): Promise<UserTokens> {
  if (linkedinPageConnect.refresh === undefined) throw new Error('LinkedIn Page tokens are renewed by the room');
  return linkedinPageConnect.refresh(refreshToken ?? '', context);
}

const member = (sub: string) => ({
  sub, name: sub, given_name: sub, family_name: '', picture: `https://media.licdn.com/${sub}`,
  email: `${sub}@example.org`,
});

type Role = 'ADMINISTRATOR' | 'ANALYST';
type State = 'APPROVED' | 'REQUESTED';
function page(
  id: number, localizedName: string, vanityName: string, sub: string, role: Role, state: State = 'APPROVED',
): void {
  sim.addOrganization({ id, localizedName, vanityName, roles: [{ sub, role, state }] });
}

beforeAll(async () => {
  sim = await startLinkedinPageSimulator();
  sim.addMember(member('ada'));
  sim.addMember(member('bob'));
  page(1001, 'Analytical Engines', 'analytical-engines', 'ada', 'ADMINISTRATOR');
  page(1002, 'Difference Ltd', 'difference', 'ada', 'ADMINISTRATOR');
  // Neither an analyst's nor a pending administrator's page can be posted to.
  page(1003, 'Read Only Co', 'read-only', 'ada', 'ANALYST');
  page(1004, 'Pending Inc', 'pending', 'ada', 'ADMINISTRATOR', 'REQUESTED');
  for (let id = 2000; id < 2105; id += 1) page(id, `Page ${String(id)}`, `page-${String(id)}`, 'bob', 'ADMINISTRATOR');
  sim.authority.consentingUser = 'ada';
  context = contextWith(sim.clientSecret);
});

afterAll(async () => {
  await sim.close();
});

describe('linkedin-page connect', () => {
  it('asks for the organization scopes on LinkedIn\'s authorize page, without PKCE', async () => {
    const { authorizeUrl } = await authorizeAndConnect(linkedinPageConnect, context);
    expect(authorizeUrl.pathname).toBe('/oauth/v2/authorization');
    expect(authorizeUrl.searchParams.get('client_id')).toBe(sim.clientId);
    const scope = 'r_organization_admin w_organization_social r_organization_social';
    expect(authorizeUrl.searchParams.get('scope')).toBe(scope);
    expect(authorizeUrl.searchParams.get('code_challenge')).toBeNull();
  });

  it('offers the pages the member administers, each with a token bound to its organization', async () => {
    const { tokens, authorized } = await authorizeAndConnect(linkedinPageConnect, context);
    expect(authorized.pick).toBe(true);
    expect(authorized.accounts.map(({ accountId, name, username }) => ({ accountId, name, username }))).toEqual([
      { accountId: 'urn:li:organization:1001', name: 'Analytical Engines', username: 'analytical-engines' },
      { accountId: 'urn:li:organization:1002', name: 'Difference Ltd', username: 'difference' },
    ]);
    const [first] = authorized.accounts;
    const organization = 'urn:li:organization:1001';
    const { accessToken, refreshToken } = tokens;
    expect(readLinkedinPageCredential(first?.accessToken ?? '')).toEqual({ accessToken, organization });
    expect(readLinkedinPageRefresh(first?.refreshToken ?? '')).toEqual({ refreshToken, organization });
    expect(first?.expiresAt).toEqual(tokens.expiresAt);
    const acl = sim.received.find((request) => request.path === '/rest/organizationAcls');
    expect(acl?.headers['linkedin-version']).toMatch(/^\d{6}$/);
    expect(acl?.headers['x-restli-protocol-version']).toBe('2.0.0');
  });

  it('reads every page of a member who administers more than one page of roles', async () => {
    sim.authority.consentingUser = 'bob';
    try {
      const { authorized } = await authorizeAndConnect(linkedinPageConnect, context);
      expect(authorized.accounts).toHaveLength(105);
      expect(authorized.accounts.at(-1)).toMatchObject({ accountId: 'urn:li:organization:2104', name: 'Page 2104' });
    } finally {
      sim.authority.consentingUser = 'ada';
    }
  });

  it('shows LinkedIn\'s refusal of a wrong client secret', async () => {
    const error = await platformFailure(authorizeAndConnect(linkedinPageConnect, contextWith('wrong')));
    expect(error.message).toBe('Client authentication failed (invalid_client)');
    expect(error.kind).toBe('permanent');
  });

  it('refuses a code used twice', async () => {
    await authorizeAndConnect(linkedinPageConnect, context);
    const exchange = sim.received.filter((request) => request.path === '/oauth/v2/accessToken').at(-1);
    const form = new URLSearchParams(exchange?.text ?? '');
    const again = exchangeAuthorizationCode(
      linkedinPageConnect.provider(context.app),
      { clientId: sim.clientId, clientSecret: sim.clientSecret },
      { code: form.get('code') ?? '', redirectUri: form.get('redirect_uri') ?? '', codeVerifier: null },
      { timeoutMs: 5_000 },
    );
    const error = await platformFailure(again);
    expect(error.message).toMatch(/^Unable to retrieve access token: .*\(invalid_request\)$/);
  });

  it('renews a page\'s token and keeps it bound to the page', async () => {
    const { authorized } = await authorizeAndConnect(linkedinPageConnect, context);
    const page = authorized.accounts[1];
    const renewed = await renew(page?.refreshToken ?? null);
    const credential = readLinkedinPageCredential(renewed.accessToken);
    expect(credential.organization).toBe('urn:li:organization:1002');
    expect(credential.accessToken).not.toBe(readLinkedinPageCredential(page?.accessToken ?? '').accessToken);
    expect(readLinkedinPageRefresh(renewed.refreshToken ?? '').organization).toBe('urn:li:organization:1002');
    const again = await linkedinPageConnect.accounts({ ...renewed, accessToken: credential.accessToken }, context);
    expect(again.accounts).toHaveLength(2);
  });

  it('calls an unknown refresh token disconnected', async () => {
    const stored = JSON.stringify({ refreshToken: 'rt-never-issued', organization: 'urn:li:organization:1001' });
    const error = await platformFailure(renew(stored));
    expect(error.kind).toBe('disconnected');
    expect(error.message).toBe('Token has been expired or revoked. (invalid_grant)');
  });

  it('refuses the member\'s token after its 60 days', async () => {
    const { tokens } = await authorizeAndConnect(linkedinPageConnect, context);
    sim.authority.now = () => Date.now() + 5_184_001_000;
    try {
      const error = await platformFailure(linkedinPageConnect.accounts(tokens, context));
      expect(error.kind).toBe('disconnected');
      expect(error.message).toBe('Invalid access token');
    } finally {
      sim.authority.now = Date.now;
    }
  });
});
