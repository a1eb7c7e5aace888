import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { isDuplicateKey } from '../../db/duplicate-key.ts';
import type { OAuth2Client } from '../../platforms/kit/oauth2-provider.ts';
import type { ConnectContext, OAuthConnect } from '../../platforms/kit/platform-connect.ts';
import { askPlatform } from './ask-platform.ts';

/**
 * The client SPS holds on a user's server (Mastodon registers apps per instance): registered
 * the first time anyone connects an account there, then reused. Two first connections racing
 * both register; the unique index keeps one and the other reads it.
 */
export async function serverClient(
  deps: { db: Database; secrets: SecretBox },
  provider: string,
  connect: OAuthConnect,
  where: { serverUrl: string; redirectUri: string },
  context: ConnectContext,
): Promise<OAuth2Client> {
  const query = { provider, serverUrl: where.serverUrl, redirectUri: where.redirectUri };
  const known = await deps.db.serverClients.findOne(query).lean();
  if (known !== null) {
    const secret = known.clientSecretSealed ?? null;
    return { clientId: known.clientId, clientSecret: secret === null ? null : deps.secrets.open(secret) };
  }
  const register = connect.registerClient;
  if (register === undefined) throw new Error(`${provider} does not register clients per server`);
  const client = await askPlatform(() => register(where.serverUrl, where.redirectUri, context));
  try {
    await deps.db.serverClients.create({
      ...query,
      clientId: client.clientId,
      clientSecretSealed: client.clientSecret === null ? null : deps.secrets.seal(client.clientSecret),
    });
    return client;
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    return serverClient(deps, provider, connect, where, context);
  }
}
