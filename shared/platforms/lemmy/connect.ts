import { z } from 'zod';
import type { ConnectionPolicy } from '../../net/connection-policy.ts';
import { userServerUrl } from '../kit/user-server-url.ts';
import type { ConnectContext, CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import type { PlatformErrorKind } from '../kit/platform-error.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { isThrottled, lemmyErrorMessage } from './lemmy-errors.ts';

const provider = 'lemmy';
const serverName = 'the Lemmy instance';

/** Signing in meets throttling as HTTP 400 `rate_limit_error`: it passes, unlike the other 400s. */
function classify(_status: number, body: unknown): PlatformErrorKind | undefined {
  return isThrottled(body) ? 'retryable' : undefined;
}

function refused(message: string, kind: PlatformErrorKind = 'permanent'): PlatformError {
  return new PlatformError({ kind, provider, message });
}

/** The instance's origin from what the user typed ("lemmy.world", "https://lemmy.world/c/x"). */
export function lemmyInstanceOrigin(typed: string, policy: ConnectionPolicy): string {
  return userServerUrl(typed, policy, { provider, serverName });
}

const loginAnswer = z.object({ jwt: z.string().min(1).nullish() });

const person = z.object({
  id: z.number().int(),
  name: z.string().min(1),
  display_name: z.string().nullish(),
  avatar: z.string().nullish(),
  actor_id: z.string().min(1),
});

const siteAnswer = z.object({
  my_user: z.object({ local_user_view: z.object({ person }) }).nullish(),
});

async function callInstance(
  context: ConnectContext,
  call: { method: 'GET' | 'POST'; url: string; json?: unknown; headers?: Record<string, string> },
): Promise<unknown> {
  return platformRequest({
    provider,
    serverName,
    ...call,
    timeoutMs: context.timeoutMs,
    errorMessage: lemmyErrorMessage,
    classify,
    userHost: context.userHosts,
  });
}

export const lemmyConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'instanceUrl',
      label: 'Instance',
      kind: 'url',
      help: 'The address of your Lemmy instance, like https://lemmy.world.',
    },
    { key: 'username', label: 'Username or email', kind: 'text', help: 'What you sign in to the instance with.' },
    {
      key: 'password',
      label: 'Password',
      kind: 'secret',
      help: 'Your Lemmy password; SPS keeps only the session it opens with it, never the password.',
    },
    {
      key: 'totp',
      label: 'Two-factor code',
      kind: 'text',
      help: 'Only if the account has two-factor authentication: the current code from your authenticator app.',
      optional: true,
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const instance = lemmyInstanceOrigin(values.instanceUrl ?? '', context.userHosts);
    const totp = values.totp ?? '';
    const login = loginAnswer.safeParse(await callInstance(context, {
      method: 'POST',
      url: `${instance}/api/v3/user/login`,
      json: {
        username_or_email: values.username ?? '',
        password: values.password ?? '',
        ...(totp === '' ? {} : { totp_2fa_token: totp }),
      },
    }));
    if (!login.success) throw refused('Lemmy answered the sign-in with a body SPS could not read');
    // No token without an error: the account awaits email verification or an admin's approval.
    const jwt = login.data.jwt;
    if (jwt === null || jwt === undefined) {
      throw refused('Lemmy: the instance gave no session; verify the account\'s email or wait for its approval first');
    }

    const site = siteAnswer.safeParse(await callInstance(context, {
      method: 'GET',
      url: `${instance}/api/v3/site`,
      headers: { Authorization: `Bearer ${jwt}` },
    }));
    if (!site.success) throw refused('Lemmy answered GET /api/v3/site with a body SPS could not read');
    const me = site.data.my_user?.local_user_view.person;
    if (me === undefined) throw refused('Lemmy: the instance did not accept the session it just gave', 'disconnected');

    return {
      // actor_id is the account's federated URL: it stays the same for as long as the account exists.
      accountId: me.actor_id,
      name: me.display_name ?? me.name,
      username: `${me.name}@${new URL(instance).host}`,
      picture: me.avatar ?? null,
      instanceUrl: instance,
      // The JWT has no expiry: it lasts until the user logs out or changes the password.
      accessToken: jwt,
      refreshToken: null,
      expiresAt: null,
    };
  },
};
