import { z } from 'zod';
import type { OAuthConnect } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { linkedinErrorMessage, linkedinProvider } from '../linkedin-family/linkedin-provider.ts';

const userinfo = z.object({
  sub: z.string().min(1),
  name: z.string().optional(),
  given_name: z.string().optional(),
  family_name: z.string().optional(),
  picture: z.string().optional(),
});

export const linkedinConnect: OAuthConnect = {
  kind: 'oauth2',
  // openid + profile for userinfo (the member's id, name and photo); w_member_social to post.
  provider: (app) => linkedinProvider(app, 'linkedin', ['openid', 'profile', 'w_member_social']),

  async accounts(tokens, context) {
    const body = await platformRequest({
      provider: 'linkedin',
      method: 'GET',
      url: `${context.app.apiUrl}/v2/userinfo`,
      headers: { Authorization: `Bearer ${tokens.accessToken}` },
      timeoutMs: context.timeoutMs,
      errorMessage: linkedinErrorMessage,
    });
    const parsed = userinfo.safeParse(body);
    if (!parsed.success) {
      const message = 'LinkedIn answered userinfo without a member id';
      throw new PlatformError({ kind: 'permanent', provider: 'linkedin', message });
    }
    const member = parsed.data;
    const fullName = [member.given_name, member.family_name]
      .filter((part) => part !== undefined && part !== '')
      .join(' ');
    return {
      pick: false,
      accounts: [{
        // Posts are authored as urn:li:person:{sub}.
        accountId: member.sub,
        name: member.name ?? (fullName === '' ? member.sub : fullName),
        // The vanity name needs r_basicprofile, a restricted scope: none is asked for.
        username: null,
        picture: member.picture ?? null,
        instanceUrl: null,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: tokens.expiresAt,
      }],
    };
  },
};
