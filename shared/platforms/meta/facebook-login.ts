import { z } from 'zod';
import type { OAuth2Provider } from '../kit/oauth2-provider.ts';
import type { ConnectContext, PlatformApp, UserTokens } from '../kit/platform-connect.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { appSecretOf, graphApiVersion, graphGet, tradeToken, type TradedToken } from './meta-graph.ts';

/**
 * Facebook Login, as both the Facebook room (Pages) and the Instagram room (business accounts
 * linked to Pages) use it: the same dialog, token endpoint, long-lived exchange and Page list.
 * Facts: ../shared/platforms/oauth-majors.md, sections 3.1 and 4.1.
 */

/**
 * The confidential web flow: the app secret in the token form, scopes separated by commas, no
 * PKCE (Meta documents PKCE only for its OIDC flow, marked as in testing). No refresh token
 * exists: a long-lived user token is traded for Page tokens that do not expire.
 */
export function facebookLoginProvider(platform: string, app: PlatformApp, scopes: readonly string[]): OAuth2Provider {
  return {
    platform,
    authorizeUrl: `${app.authUrl}/${graphApiVersion}/dialog/oauth`,
    tokenUrl: `${app.tokenUrl}/${graphApiVersion}/oauth/access_token`,
    scopes,
    scopeSeparator: ',',
    pkce: false,
    clientAuthentication: 'body',
    refreshable: false,
  };
}

/**
 * The code gives a user token that lives an hour or two; `fb_exchange_token` makes it one of
 * about 60 days, and only Page tokens read with a long-lived user token never expire.
 */
export function longLivedUserToken(
  platform: string,
  tokens: UserTokens,
  context: ConnectContext,
): Promise<TradedToken> {
  const { clientId, clientSecret } = appSecretOf(platform, context.app);
  return tradeToken({
    provider: platform,
    url: `${context.app.tokenUrl}/${graphApiVersion}/oauth/access_token`,
    query: {
      grant_type: 'fb_exchange_token',
      client_id: clientId,
      client_secret: clientSecret,
      fb_exchange_token: tokens.accessToken,
    },
    timeoutMs: context.timeoutMs,
    refusal: 'permanent',
  });
}

/** A Page from GET /me/accounts, with the fields either room asks for. */
const managedPage = z.object({
  id: z.string(),
  name: z.string(),
  username: z.string().optional(),
  access_token: z.string().optional(),
  tasks: z.array(z.string()).optional(),
  picture: z.object({ data: z.object({ url: z.string() }).loose() }).optional(),
  instagram_business_account: z.object({
    id: z.string(),
    username: z.string().optional(),
    name: z.string().optional(),
    profile_picture_url: z.string().optional(),
  }).optional(),
}).loose();

export type ManagedPage = z.infer<typeof managedPage>;

const pageList = z.object({
  data: z.array(managedPage),
  paging: z.object({
    cursors: z.object({ after: z.string().optional() }).optional(),
    next: z.string().optional(),
  }).optional(),
});

/** Graph's largest page size for /me/accounts; a person rarely runs more Pages than this. */
const pageSize = 100;
/** Stops a cursor that never ends; 1,000 Pages is far beyond anyone connecting by hand. */
const maxRounds = 10;

/** Every Page the user can act for, following Graph's cursors. */
export async function managedPages(
  platform: string,
  userToken: string,
  fields: string,
  context: ConnectContext,
): Promise<ManagedPage[]> {
  const pages: ManagedPage[] = [];
  let after: string | undefined;
  for (let round = 0; round < maxRounds; round += 1) {
    const body = await graphGet({
      provider: platform,
      url: `${context.app.apiUrl}/${graphApiVersion}/me/accounts`,
      query: { fields, limit: String(pageSize), access_token: userToken, ...(after === undefined ? {} : { after }) },
      timeoutMs: context.timeoutMs,
      refusal: 'permanent',
    });
    const parsed = pageList.safeParse(body);
    if (!parsed.success) {
      throw unreadableAnswer(platform, `${platform} answered the list of Pages in a form`, { cause: parsed.error });
    }
    pages.push(...parsed.data.data);
    after = parsed.data.paging?.cursors?.after;
    if (parsed.data.paging?.next === undefined || after === undefined) break;
  }
  return pages;
}

/**
 * Publishing to a Page, or to the Instagram account linked to it, needs the CREATE_CONTENT (or
 * MANAGE) task on the Page; a Page the user may only moderate or analyze is not offered. Without
 * a Page token nothing could be published either.
 */
export function publishablePage(page: ManagedPage): page is ManagedPage & { access_token: string } {
  if (page.access_token === undefined) return false;
  return page.tasks === undefined || page.tasks.includes('CREATE_CONTENT') || page.tasks.includes('MANAGE');
}
