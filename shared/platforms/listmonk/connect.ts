import { z } from 'zod';
import type { ConnectContext, CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { platformRequest } from '../kit/platform-http.ts';
import { encodeListmonkCredential, listmonkAuthorization, type ListmonkCredential } from './credential.ts';
import { userServerUrl } from '../kit/user-server-url.ts';
import { classifyListmonkRefusal, listmonkMessage } from './listmonk-errors.ts';

const provider = 'listmonk';
const serverName = 'the listmonk instance';

/** GET /api/profile: the signed-in user; it needs no permission, so any API user can read it. */
const profileAnswer = z.object({
  data: z.object({
    id: z.number().int(),
    username: z.string(),
    name: z.string().nullable().optional(),
    avatar: z.string().nullable().optional(),
  }),
});

/** GET /api/settings: flat keys; it needs settings:get, which a publishing user may lack. */
const settingsAnswer = z.object({
  data: z.object({
    'app.site_name': z.string().optional(),
    'app.logo_url': z.string().optional(),
  }),
});

function callInstance(url: string, credential: ListmonkCredential, context: ConnectContext): Promise<unknown> {
  return platformRequest({
    provider,
    serverName,
    method: 'GET',
    url,
    headers: { Authorization: listmonkAuthorization(credential) },
    timeoutMs: context.timeoutMs,
    errorMessage: listmonkMessage,
    classify: classifyListmonkRefusal,
    userHost: context.userHosts,
  });
}

/** The signed-in API user; null before v4, which has no API users (and no /api/profile). */
async function readProfile(root: string, credential: ListmonkCredential, context: ConnectContext) {
  let body: unknown;
  try {
    body = await callInstance(`${root}/api/profile`, credential, context);
  } catch (error) {
    if (error instanceof PlatformError && error.httpStatus === 404) return null;
    throw error;
  }
  const parsed = profileAnswer.safeParse(body);
  if (!parsed.success) {
    const message = `${root} did not answer like listmonk's API; check the address`;
    throw new PlatformError({ kind: 'permanent', provider, message, cause: parsed.error });
  }
  return parsed.data.data;
}

/**
 * Before v4 the only login is the admin's (Basic auth with the user name and password of the
 * instance's config), which reads the settings: an answer there is the check that the address is
 * listmonk and the login is right. A server that has neither route is not listmonk.
 */
async function readLegacySettings(root: string, credential: ListmonkCredential, context: ConnectContext) {
  let body: unknown;
  try {
    body = await callInstance(`${root}/api/settings`, credential, context);
  } catch (error) {
    if (!(error instanceof PlatformError) || error.httpStatus !== 404) throw error;
    const message = `no listmonk answers at ${root} (neither /api/profile nor /api/settings); check the address`;
    throw new PlatformError({ kind: 'permanent', provider, httpStatus: 404, message, cause: error });
  }
  const parsed = settingsAnswer.safeParse(body);
  if (!parsed.success) {
    const message = `${root} did not answer like listmonk's API; check the address`;
    throw new PlatformError({ kind: 'permanent', provider, message, cause: parsed.error });
  }
  return parsed.data.data;
}

/**
 * The instance's name and logo, for telling channels apart on the dashboard. An API user without
 * settings:get is refused (403), which is no reason to refuse the connection: it gets no name.
 */
async function readSettings(root: string, credential: ListmonkCredential, context: ConnectContext) {
  let body: unknown;
  try {
    body = await callInstance(`${root}/api/settings`, credential, context);
  } catch (error) {
    if (error instanceof PlatformError && error.kind === 'permanent') return null;
    throw error;
  }
  const parsed = settingsAnswer.safeParse(body);
  return parsed.success ? parsed.data.data : null;
}

const isWebAddress = (value: string | null | undefined): value is string => /^https?:\/\//i.test(value ?? '');

export const listmonkConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'url',
      label: 'listmonk address',
      kind: 'url',
      help: 'The address of your listmonk instance, such as https://lists.example.com.',
    },
    {
      key: 'apiUser',
      label: 'API user',
      kind: 'text',
      help: 'The name of an API user created in listmonk under Admin → Users (type: API). Before listmonk v4: '
        + 'the admin user name from its config.',
    },
    {
      key: 'token',
      label: 'API token',
      kind: 'secret',
      help: 'The token listmonk showed when the API user was created. Its role needs campaigns:manage, '
        + 'campaigns:send, media:manage and access to the lists you send to. Before v4: the admin password.',
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const root = userServerUrl(values.url ?? '', context.userHosts, {
      provider,
      serverName: 'the listmonk instance',
      // The admin app's or an API URL, as users copy them; the instance is the folder before it.
      strip: /\/(admin|api)(\/.*)?$/,
    });
    const credential = { apiUser: values.apiUser ?? '', token: values.token ?? '' };
    const profile = await readProfile(root, credential, context);
    const settings = profile === null
      ? await readLegacySettings(root, credential, context)
      : await readSettings(root, credential, context);
    const siteName = settings?.['app.site_name']?.trim() ?? '';
    const user = profile?.username ?? credential.apiUser;
    const picture = [profile?.avatar, settings?.['app.logo_url']].find(isWebAddress) ?? null;
    return {
      // User names are unique per instance only.
      accountId: `${user}@${root}`,
      name: siteName === '' ? user : `${user} (${siteName})`,
      username: user,
      picture,
      instanceUrl: root,
      accessToken: encodeListmonkCredential(credential),
      refreshToken: null,
      expiresAt: null,
    };
  },
};
