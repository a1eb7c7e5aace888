import { z } from 'zod';
import type { ConnectContext, CredentialsConnect, VerifiedAccount } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { userServerUrl } from '../kit/user-server-url.ts';
import { encodeWordpressCredential, type WordpressCredential } from './credential.ts';
import { provider, serverName, wordpressRest } from './wordpress-rest.ts';

/** GET /wp/v2/users/me?context=edit: the edit context adds the login, roles and capabilities. */
const currentUser = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  username: z.string().optional(),
  avatar_urls: z.record(z.string(), z.string()).optional(),
  roles: z.array(z.string()).optional(),
  capabilities: z.record(z.string(), z.boolean()).optional(),
});

type CurrentUser = z.infer<typeof currentUser>;

/** Core roles that carry publish_posts, for sites that hide the capabilities map. */
const publishingRoles = new Set(['administrator', 'editor', 'author']);

/**
 * The signed-in user; the REST helper finds the API at /wp-json/ or, on sites without pretty
 * permalinks, at ?rest_route=.
 */
async function readCurrentUser(
  site: string,
  credential: WordpressCredential,
  context: ConnectContext,
): Promise<CurrentUser> {
  const rest = wordpressRest({ timeoutMs: context.timeoutMs, userHosts: context.userHosts });
  const call = { method: 'GET', route: '/wp/v2/users/me', query: { context: 'edit' } } as const;
  const body = await rest.call({ site, credential }, call);
  const parsed = currentUser.safeParse(body);
  if (!parsed.success) {
    const message = `${site} did not answer like a WordPress REST API; check the site address`;
    throw new PlatformError({ kind: 'permanent', provider, message, cause: parsed.error });
  }
  return parsed.data;
}

/** Null when the site shows neither capabilities nor roles: publishing will tell then. */
function canPublish(user: CurrentUser): boolean | null {
  if (user.capabilities !== undefined) return user.capabilities.publish_posts === true;
  if (user.roles !== undefined) return user.roles.some((role) => publishingRoles.has(role));
  return null;
}

/** avatar_urls is keyed by pixel size ("24", "48", "96"); the largest looks best on the dashboard. */
function largestAvatar(avatars: Record<string, string> | undefined): string | null {
  const sizes = Object.entries(avatars ?? {}).sort(([a], [b]) => Number(b) - Number(a));
  return sizes[0]?.[1] ?? null;
}

export const wordpressConnect: CredentialsConnect = {
  kind: 'credentials',
  fields: [
    {
      key: 'siteUrl',
      label: 'Site address',
      kind: 'url',
      help: 'The address of your WordPress site, such as https://blog.example.com '
        + '(with the folder if WordPress lives in one, such as https://example.com/blog).',
    },
    {
      key: 'username',
      label: 'Username',
      kind: 'text',
      help: 'The user name (or email address) you sign in to wp-admin with.',
    },
    {
      key: 'applicationPassword',
      label: 'Application password',
      kind: 'secret',
      help: 'Not your login password: create one in wp-admin under Users → Profile → Application Passwords '
        + '(WordPress 5.6 or later).',
    },
  ],

  async verify(values, context): Promise<VerifiedAccount> {
    const site = userServerUrl(values.siteUrl ?? '', context.userHosts, {
      provider,
      serverName,
      // Where users often copy the address from; the site is the folder before it.
      strip: /\/(wp-json|wp-admin|wp-login\.php|index\.php|xmlrpc\.php)(\/.*)?$/,
    });
    const credential = { username: values.username ?? '', applicationPassword: values.applicationPassword ?? '' };
    const user = await readCurrentUser(site, credential, context);
    if (canPublish(user) === false) {
      const roles = user.roles === undefined || user.roles.length === 0 ? '' : ` (role: ${user.roles.join(', ')})`;
      const message = `the WordPress user ${user.username ?? user.slug}${roles} cannot publish posts; `
        + 'connect a user with the Author, Editor or Administrator role';
      throw new PlatformError({ kind: 'permanent', provider, message });
    }
    return {
      // User ids start at 1 on every site: the site makes them unique.
      accountId: `${String(user.id)}@${site}`,
      name: user.name,
      username: user.username ?? user.slug,
      picture: largestAvatar(user.avatar_urls),
      instanceUrl: site,
      accessToken: encodeWordpressCredential(credential),
      refreshToken: null,
      expiresAt: null,
    };
  },
};
