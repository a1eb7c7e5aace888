// Connects a channel of a platform that signs in with typed credentials and prints {"id", "created"}:
// the same checks as the dashboard's form (the platform verifies the values, the profile is read).
import { parseArgs } from 'node:util';
import { InvalidationPublisher } from '../shared/cache/invalidation-bus.ts';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import { openDatabase } from '../shared/db/database.ts';
import { connectModule } from '../shared/domain/channels/connect-channel.ts';
import { connectWithCredentials } from '../shared/domain/channels/connect-with-credentials.ts';
import { connectionPolicyFor } from '../shared/net/connection-policy.ts';
import { PlatformApps } from '../shared/platforms/platform-apps.ts';
import { createRedis } from '../shared/queue/redis.ts';
import { runScript } from './local/run-script.ts';

const usage = 'usage: npm run channel:add -- --org <organization id> --provider <platform> --field <key>=<value> ...'
  + ' [--refresh <channel id>] [--customer <name>]';

await runScript(async (config) => {
  const { values } = parseArgs({
    options: {
      org: { type: 'string' },
      provider: { type: 'string' },
      field: { type: 'string', multiple: true },
      refresh: { type: 'string' },
      customer: { type: 'string' },
    },
    strict: true,
  });
  if (values.org === undefined || values.provider === undefined) throw new Error(usage);
  const module = connectModule(values.provider);
  const { identifier, displayName } = module.definition;
  const connect = module.connect;
  if (connect.kind !== 'credentials') {
    const how = `use the dashboard or GET /api/public/v1/social/${identifier}`;
    throw new Error(`${displayName} is connected through its own sign-in page: ${how}`);
  }
  const fields: Record<string, string> = {};
  for (const pair of values.field ?? []) {
    const split = pair.indexOf('=');
    if (split <= 0) throw new Error(`--field takes <key>=<value>, got ${JSON.stringify(pair)}; ${usage}`);
    fields[pair.slice(0, split)] = pair.slice(split + 1);
  }
  const known = new Set(connect.fields.map((field) => field.key));
  const unknown = Object.keys(fields).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    throw new Error(`${displayName} has no field ${unknown.join(', ')}; its fields: ${[...known].join(', ')}`);
  }
  const db = await openDatabase(config.MONGO_URL);
  // A reconnect renames the channel or changes its text limit: running api processes hear of it.
  const redis = createRedis(config, 'producer');
  try {
    const userHosts = connectionPolicyFor(config.ALLOW_PRIVATE_NETWORK);
    const platforms = new PlatformApps(process.env, { timeoutMs: config.PLATFORM_TIMEOUT_MS, userHosts });
    const connected = await connectWithCredentials(
      { db, secrets: new SecretBox(config.SECRETS_KEY), caches: new InvalidationPublisher(redis, config.QUEUE_PREFIX) },
      connect,
      platforms.context(identifier),
      {
        organizationId: values.org,
        provider: identifier,
        values: fields,
        refreshChannelId: values.refresh ?? null,
        customer: values.customer ?? null,
      },
    );
    return { id: connected.id, created: connected.created, name: connected.account.name };
  } finally {
    redis.disconnect();
    await db.close();
  }
});
