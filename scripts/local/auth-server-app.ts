import type { SecretBox } from '../../shared/crypto/secret-box.ts';
import type { Database } from '../../shared/db/database.ts';
import { registerApp, rotateAppSecret } from '../../shared/domain/oauth/oauth-apps.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { trailingSlashes } from '../../shared/net/trailing-slashes.ts';

/** Name of the organization that owns the auth server's OAuth app when none is given. */
export const authServerOrganizationName = 'SPS command-line client';
const appName = 'SPS command-line client';

/**
 * The OAuth app the device-flow auth server logs users in with (callback `${authUrl}/device/callback`).
 * Made once; later calls rotate its secret, since a secret is only ever shown when it is made.
 */
export async function ensureAuthServerApp(db: Database, secrets: SecretBox, input: { authUrl: string; organizationId?: string | undefined }): Promise<{ clientId: string; clientSecret: string; organizationId: string }> {
  const redirectUrl = `${input.authUrl.replace(trailingSlashes, '')}/device/callback`;
  let organizationId = input.organizationId;
  if (organizationId === undefined) {
    const existing = await db.organizations.findOne({ name: authServerOrganizationName }).sort({ createdAt: 1 }).lean();
    organizationId = existing?._id.toString() ?? (await createOrganization(db, secrets, { name: authServerOrganizationName })).organizationId;
  }
  const app = await db.oauthApps.findOne({ organizationId, name: appName, redirectUrl }).lean();
  if (app !== null) return { clientId: app.clientId, clientSecret: await rotateAppSecret(db, secrets, organizationId, app._id.toString()), organizationId };
  const created = await registerApp(db, secrets, organizationId, {
    name: appName,
    description: 'The sps command-line tool. Approving lets it use the public API for the organization you choose, like an API key.',
    redirectUrl,
  });
  return { clientId: created.app.clientId, clientSecret: created.clientSecret, organizationId };
}
