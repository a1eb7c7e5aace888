import { z } from 'zod';
import type { CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { devtoErrorMessage as errorMessage, foremV1 } from './devto-api.ts';

const provider = 'devto';

/** GET /api/users/me (Forem API v1). */
const me = z.object({
  id: z.number().int(),
  username: z.string(),
  name: z.string().nullable().optional(),
  profile_image: z.string().nullable().optional(),
});

export const devtoConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'apiKey',
      label: 'API key',
      kind: 'secret',
      help: 'Generate one on dev.to under Settings → Extensions → DEV Community API Keys.',
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const apiKey = values.apiKey ?? '';
    const body = await platformRequest({
      provider,
      serverName: 'dev.to',
      method: 'GET',
      url: `${context.app.apiUrl}/users/me`,
      headers: { 'api-key': apiKey, ...foremV1 },
      timeoutMs: context.timeoutMs,
      errorMessage,
    });
    const parsed = me.safeParse(body);
    if (!parsed.success) {
      throw unreadableAnswer(provider, 'dev.to answered with a profile', { cause: parsed.error });
    }
    const user = parsed.data;
    return {
      accountId: String(user.id),
      name: user.name ?? user.username,
      username: user.username,
      picture: user.profile_image ?? null,
      instanceUrl: null,
      accessToken: apiKey,
      refreshToken: null,
      expiresAt: null,
    };
  },
};
