import { z } from 'zod';
import type { CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { unreadableAnswer } from '../kit/unreadable-answer.ts';
import { mediumErrorMessage as errorMessage } from './medium-api.ts';

const provider = 'medium';

/** GET /v1/me: the user id is what publishing posts under (/v1/users/{id}/posts). */
const me = z.object({
  data: z.object({
    id: z.string().min(1),
    username: z.string(),
    name: z.string().nullable().optional(),
    url: z.string().optional(),
    imageUrl: z.string().nullable().optional(),
  }),
});

export const mediumConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'integrationToken',
      label: 'Integration token',
      kind: 'secret',
      help: 'Medium no longer issues new integration tokens; only a token you already have works. '
        + 'Existing ones are listed on medium.com under Settings → Security and apps → Integration tokens.',
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const token = values.integrationToken ?? '';
    const body = await platformRequest({
      provider,
      serverName: 'Medium',
      method: 'GET',
      url: `${context.app.apiUrl}/me`,
      headers: { Authorization: `Bearer ${token}`, 'Accept-Charset': 'utf-8' },
      timeoutMs: context.timeoutMs,
      errorMessage,
    });
    const parsed = me.safeParse(body);
    if (!parsed.success) {
      throw unreadableAnswer(provider, 'Medium answered with a profile', { cause: parsed.error });
    }
    const user = parsed.data.data;
    return {
      accountId: user.id,
      name: user.name ?? user.username,
      username: user.username,
      picture: user.imageUrl ?? null,
      instanceUrl: null,
      accessToken: token,
      refreshToken: null,
      expiresAt: null,
    };
  },
};
