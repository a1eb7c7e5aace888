import { z } from 'zod';
import { refreshAccessToken } from '../kit/oauth2.ts';
import type { OAuth2Provider } from '../kit/oauth2-provider.ts';
import type { ConnectContext, OAuthConnect, PlatformApp, UserTokens } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { encodePinterestCredential, encodePinterestRefresh, readPinterestRefresh } from './credential.ts';
import { pinterestErrorMessage } from './pinterest-errors.ts';
import { everyPage } from './pinterest-pages.ts';

/**
 * Pinterest (API v5): the authorization-code flow with HTTP Basic at the token endpoint and
 * comma-separated scopes; the user then picks boards, each a channel.
 * Facts: ../shared/platforms/design-blogging-business.md, section 1.
 */
function pinterestProvider(app: PlatformApp): OAuth2Provider {
  return {
    platform: 'pinterest',
    authorizeUrl: `${app.authUrl}/oauth/`,
    tokenUrl: `${app.tokenUrl}/v5/oauth/token`,
    // boards:read lists the boards to pick; creating a pin takes boards:write with pins:read and
    // pins:write (the spec's scopes of POST /v5/pins), and boards:write the createBoard tool;
    // user_accounts:read the profile (and its analytics).
    scopes: ['boards:read', 'boards:write', 'pins:read', 'pins:write', 'user_accounts:read'],
    scopeSeparator: ',',
    // Pinterest documents no PKCE for its v5 authorization-code flow.
    pkce: false,
    clientAuthentication: 'basic',
    refreshable: true,
  };
}

const userAccount = z.object({
  id: z.string().optional(),
  username: z.string().min(1),
  profile_image: z.string().optional(),
  business_name: z.string().optional(),
});

const boardsPage = z.object({
  items: z.array(z.object({ id: z.string().min(1), name: z.string() }).loose()),
  bookmark: z.string().nullable().optional(),
});

function malformed(what: string): PlatformError {
  const message = `Pinterest answered ${what} in an unknown shape`;
  return new PlatformError({ kind: 'permanent', provider: 'pinterest', message });
}

function read(path: string, accessToken: string, context: ConnectContext): Promise<unknown> {
  return platformRequest({
    provider: 'pinterest',
    method: 'GET',
    url: `${context.app.apiUrl}${path}`,
    headers: { Authorization: `Bearer ${accessToken}` },
    timeoutMs: context.timeoutMs,
    errorMessage: pinterestErrorMessage,
  });
}

async function allBoards(accessToken: string, context: ConnectContext): Promise<{ id: string; name: string }[]> {
  const boards = await everyPage(async (bookmark) => {
    const query = bookmark === null ? '' : `&bookmark=${encodeURIComponent(bookmark)}`;
    const parsed = boardsPage.safeParse(await read(`/v5/boards?page_size=250${query}`, accessToken, context));
    if (!parsed.success) throw malformed('the boards');
    return parsed.data;
  });
  return boards.map(({ id, name }) => ({ id, name }));
}

export const pinterestConnect: OAuthConnect = {
  kind: 'oauth2',
  provider: pinterestProvider,

  async accounts(tokens, context) {
    const account = userAccount.safeParse(await read('/v5/user_account', tokens.accessToken, context));
    if (!account.success) throw malformed('the user account');
    const { username, profile_image: picture } = account.data;
    const boards = await allBoards(tokens.accessToken, context);
    return {
      pick: true,
      accounts: boards.map((board) => ({
        accountId: board.id,
        name: board.name,
        username,
        picture: picture ?? null,
        instanceUrl: null,
        accessToken: encodePinterestCredential({ accessToken: tokens.accessToken, boardId: board.id }),
        refreshToken: tokens.refreshToken === null
          ? null
          : encodePinterestRefresh({ refreshToken: tokens.refreshToken, boardId: board.id }),
        expiresAt: tokens.expiresAt,
      })),
    };
  },

  /**
   * The RFC 6749 refresh grant on the user's refresh token, re-bound to the board. Pinterest
   * refuses a dead refresh token with its own `{code, message}` body, which carries no
   * `invalid_grant`: a 400 is read here as the user having to reconnect (a 401 is the app's own
   * credentials being refused, which reconnecting would not mend).
   * Every refresh answer carries a new refresh token, which replaces the one spent.
   */
  async refresh(stored, context): Promise<UserTokens> {
    const { refreshToken, boardId } = readPinterestRefresh(stored);
    const { clientId, clientSecret } = context.app;
    if (clientId === null) {
      throw new PlatformError({ kind: 'retryable', provider: 'pinterest', message: 'PINTEREST_CLIENT_ID is not set' });
    }
    let renewed: UserTokens;
    try {
      const options = { timeoutMs: context.timeoutMs, now: context.now?.() };
      const client = { clientId, clientSecret };
      renewed = await refreshAccessToken(pinterestProvider(context.app), client, refreshToken, options);
    } catch (error) {
      if (error instanceof PlatformError && error.kind === 'permanent' && error.httpStatus === 400) {
        const { message } = error;
        const kind = 'disconnected';
        throw new PlatformError({ kind, provider: 'pinterest', message, httpStatus: 400, cause: error });
      }
      throw error;
    }
    return {
      accessToken: encodePinterestCredential({ accessToken: renewed.accessToken, boardId }),
      refreshToken: encodePinterestRefresh({ refreshToken: renewed.refreshToken ?? refreshToken, boardId }),
      expiresAt: renewed.expiresAt,
    };
  },
};
