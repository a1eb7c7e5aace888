import { z } from 'zod';
import { refreshAccessToken } from '../kit/oauth2.ts';
import type { ConnectContext, OAuthConnect, UserTokens, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { googleApiErrorMessage, googleOAuthProvider } from '../youtube/google-oauth.ts';
import { encodeGmbCredential, encodeGmbRefreshCredential, readGmbRefreshCredential } from './credential.ts';

const provider = 'gmb';
const scopes = ['https://www.googleapis.com/auth/business.manage'] as const;

/** The account-management host; GMB_API_URL replaces it (tests point it at one simulator). */
export const gmbApiUrl = 'https://mybusinessaccountmanagement.googleapis.com';

/**
 * Locations are listed by the Business Information API, on its own host in production. Any
 * other base (a simulator, an operator's proxy) serves both APIs, whose paths do not collide.
 */
export function businessInformationUrl(apiUrl: string): string {
  const url = new URL(apiUrl);
  if (!url.hostname.startsWith('mybusinessaccountmanagement.')) return apiUrl;
  url.hostname = url.hostname.replace(/^mybusinessaccountmanagement\./, 'mybusinessbusinessinformation.');
  return url.toString().replace(/\/+$/, '');
}

/** Google pages both lists; a runaway nextPageToken must not hold the connect step forever. */
const maxPages = 20;

const accountPage = z.object({
  accounts: z.array(z.object({ name: z.string().regex(/^accounts\/[^/]+$/) })).optional(),
  nextPageToken: z.string().optional(),
});

const location = z.object({ name: z.string().regex(/^locations\/[^/]+$/), title: z.string().optional() });
const locationPage = z.object({
  locations: z.array(location).optional(),
  nextPageToken: z.string().optional(),
});

async function googleGet<T>(url: URL, schema: z.ZodType<T>, tokens: UserTokens, context: ConnectContext): Promise<T> {
  const body = await platformRequest({
    provider,
    serverName: 'Google Business Profile',
    method: 'GET',
    url: url.toString(),
    headers: { Authorization: `Bearer ${tokens.accessToken}` },
    timeoutMs: context.timeoutMs,
    errorMessage: googleApiErrorMessage,
  });
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const message = 'Google Business Profile answered with a list SPS could not read';
    throw new PlatformError({ kind: 'permanent', provider, message, cause: parsed.error });
  }
  return parsed.data;
}

/** Every page of a Google list, one after the other, each page's items through `itemsOf`. */
async function allPages<P extends { nextPageToken?: string | undefined }, I>(
  fetchPage: (pageToken: string | null) => Promise<P>,
  itemsOf: (page: P) => I[] | undefined,
): Promise<I[]> {
  const items: I[] = [];
  let pageToken: string | null = null;
  for (let count = 0; count < maxPages; count += 1) {
    const page = await fetchPage(pageToken);
    items.push(...(itemsOf(page) ?? []));
    if (page.nextPageToken === undefined || page.nextPageToken === '') break;
    pageToken = page.nextPageToken;
  }
  return items;
}

async function businessAccounts(tokens: UserTokens, context: ConnectContext): Promise<string[]> {
  const accounts = await allPages((pageToken) => {
    const url = new URL(`${context.app.apiUrl}/v1/accounts`);
    if (pageToken !== null) url.searchParams.set('pageToken', pageToken);
    return googleGet(url, accountPage, tokens, context);
  }, (page) => page.accounts);
  return accounts.map((account) => account.name);
}

async function accountLocations(
  account: string,
  tokens: UserTokens,
  context: ConnectContext,
): Promise<z.infer<typeof location>[]> {
  return allPages((pageToken) => {
    const url = new URL(`${businessInformationUrl(context.app.apiUrl)}/v1/${account}/locations`);
    // The Business Information API refuses a list without a read mask.
    url.searchParams.set('readMask', 'name,title');
    url.searchParams.set('pageSize', '100');
    if (pageToken !== null) url.searchParams.set('pageToken', pageToken);
    return googleGet(url, locationPage, tokens, context);
  }, (page) => page.locations);
}

export const gmbConnect: OAuthConnect = {
  kind: 'oauth2',

  provider: (app) => googleOAuthProvider(provider, app, scopes),

  async accounts(tokens, context) {
    const targets: VerifiedAccount[] = [];
    // One account after the other, so a refusal names the request that failed.
    for (const account of await businessAccounts(tokens, context)) {
      for (const location of await accountLocations(account, tokens, context)) {
        targets.push({
          accountId: location.name,
          name: location.title ?? location.name,
          username: null,
          picture: null,
          instanceUrl: null,
          accessToken: encodeGmbCredential({ accessToken: tokens.accessToken, account, location: location.name }),
          refreshToken: tokens.refreshToken === null
            ? null
            : encodeGmbRefreshCredential({ refreshToken: tokens.refreshToken, account, location: location.name }),
          expiresAt: tokens.expiresAt,
        });
      }
    }
    if (targets.length === 0) {
      const message = 'this Google account manages no Business Profile location: add or claim one, then connect again';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    return { pick: true, accounts: targets };
  },

  /** Google's refresh grant, with the location carried over into the renewed credential. */
  async refresh(refreshToken, context) {
    const held = readGmbRefreshCredential(refreshToken);
    if (held === null) {
      const message = 'the stored Google Business Profile credential names no location: connect the location again';
      throw new PlatformError({ kind: 'disconnected', provider, message });
    }
    const { clientId, clientSecret } = context.app;
    if (clientId === null) {
      throw new PlatformError({ kind: 'retryable', provider, message: 'GMB_CLIENT_ID is not configured' });
    }
    const client = { clientId, clientSecret };
    const renewed = await refreshAccessToken(gmbConnect.provider(context.app), client, held.refreshToken, {
      timeoutMs: context.timeoutMs,
      now: context.now?.(),
    });
    const target = { account: held.account, location: held.location };
    return {
      accessToken: encodeGmbCredential({ accessToken: renewed.accessToken, ...target }),
      refreshToken: encodeGmbRefreshCredential({ refreshToken: renewed.refreshToken ?? held.refreshToken, ...target }),
      expiresAt: renewed.expiresAt,
    };
  },
};
