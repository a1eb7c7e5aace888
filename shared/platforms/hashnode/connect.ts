import { z } from 'zod';
import type { CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError, type PlatformErrorKind } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';

const provider = 'hashnode';

const meQuery = 'query Me { me { id username name profilePicture } }';

const graphqlError = z.object({
  message: z.string(),
  extensions: z.object({ code: z.string().optional() }).optional(),
});

const graphqlErrors = z.object({ errors: z.array(graphqlError).min(1) });

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

function errorMessage(body: unknown): string | undefined {
  const parsed = graphqlErrors.safeParse(body);
  return parsed.success ? parsed.data.errors.map((error) => error.message).join('; ') : undefined;
}

/** Hashnode answers most failures with HTTP 200 and GraphQL errors; their code says what they mean. */
function kindForCode(code: string | undefined): PlatformErrorKind {
  if (code === 'UNAUTHENTICATED') return 'disconnected';
  if (code === 'INTERNAL_SERVER_ERROR') return 'retryable';
  return 'permanent';
}

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
    const errors = graphqlErrors.safeParse(body);
    if (errors.success) {
      const kind = kindForCode(errors.data.errors[0]?.extensions?.code);
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
