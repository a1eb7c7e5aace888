import { noCache } from '../../shared/cache/invalidation-bus.ts';
import {
  connectWithCredentials, credentialsPlatform,
} from '../../shared/domain/channels/connect-with-credentials.ts';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { connectionPolicyFor } from '../../shared/net/connection-policy.ts';
import { PlatformApps } from '../../shared/platforms/platform-apps.ts';
import type { TestContext } from './test-context.ts';

/** An organization of the test database and the channel its user connected. */
export interface CredentialChannelOrg {
  apiKey: string;
  organizationId: string;
  channelId: string;
}

/**
 * A new organization named `organizationName` whose user connected `provider` with `values`, the
 * way the dashboard's form does: the platform (a simulator, reached through the URLs of `ctx`'s
 * environment) checks them and reads the profile before SPS saves the channel.
 */
export async function organizationWithCredentialChannel(
  ctx: TestContext,
  provider: string,
  values: Readonly<Record<string, unknown>>,
  organizationName: string,
): Promise<CredentialChannelOrg> {
  const org = await createOrganization(ctx.db, ctx.secrets, { name: organizationName });
  const apps = new PlatformApps(ctx.env, { timeoutMs: 5_000, userHosts: connectionPolicyFor(true) });
  const connected = await connectWithCredentials(
    { db: ctx.db, secrets: ctx.secrets, caches: noCache },
    credentialsPlatform(provider).connect,
    apps.context(provider),
    { organizationId: org.organizationId, provider, values },
  );
  return { apiKey: org.apiKey, organizationId: org.organizationId, channelId: connected.id };
}
