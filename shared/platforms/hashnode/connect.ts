import { z } from 'zod';
import type { CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { hashnodeErrorCode, hashnodeErrorMessage as errorMessage, kindForCode } from './hashnode-graphql.ts';

const provider = 'hashnode';

const meQuery = 'query Me { me { id username name profilePicture } }';

const graphqlErrors = z.object({ errors: z.array(z.unknown()).min(1) });

const meAnswer = z.object({
  data: z.object({
    me: z.object({
      id: z.string().min(1),
      username: z.string(),
      name: z.string().nullable().optional(),
      profilePicture: z.string().nullable().optional(),
    }).nullable(),
  }).nullable().optional(),
});

export const hashnodeConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'token',
      label: 'Personal access token',
      kind: 'secret',
      help: 'Generate one at hashnode.com/settings/developer (Personal Access Token).',
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const token = values.token ?? '';
    const body = await platformRequest({
      provider,
      serverName: 'Hashnode',
      method: 'POST',
      url: context.app.apiUrl,
      // Hashnode takes the token itself as the header value; no scheme is needed.
      headers: { Authorization: token },
      json: { query: meQuery },
      timeoutMs: context.timeoutMs,
      errorMessage,
    });
    // Hashnode answers most failures with HTTP 200 and GraphQL errors; their code says what they mean.
    if (graphqlErrors.safeParse(body).success) {
      const kind = kindForCode(hashnodeErrorCode(body));
      throw new PlatformError({ kind, provider, httpStatus: 200, message: errorMessage(body) ?? 'Hashnode refused' });
    }
    const parsed = meAnswer.safeParse(body);
    const user = parsed.success ? parsed.data.data?.me : null;
    if (user === null || user === undefined) {
      const message = 'Hashnode answered without the profile of the token’s user';
      throw new PlatformError({ kind: 'permanent', provider, message, cause: parsed.error });
    }
    return {
      accountId: user.id,
      name: user.name ?? user.username,
      username: user.username,
      picture: user.profilePicture ?? null,
      instanceUrl: null,
      accessToken: token,
      refreshToken: null,
      expiresAt: null,
    };
  },
};
