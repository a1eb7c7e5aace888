// Connects a channel of a token-based platform (Mastodon) and prints {"id"}.
import { parseArgs } from 'node:util';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import { openDatabase } from '../shared/db/database.ts';
import { addTokenChannel } from '../shared/domain/channels/channels.ts';
import { runScript } from './local/run-script.ts';

const usage = 'usage: npm run channel:add -- --org <organization id> --provider mastodon --name <name> --instance <https URL> --token <access token> [--profile <handle>] [--picture <URL>]';

await runScript(async (config) => {
  const { values } = parseArgs({
    options: {
      org: { type: 'string' },
      provider: { type: 'string' },
      name: { type: 'string' },
      instance: { type: 'string' },
      token: { type: 'string' },
      profile: { type: 'string' },
      picture: { type: 'string' },
    },
    strict: true,
  });
  if (values.org === undefined || values.provider === undefined || values.name === undefined || values.token === undefined) throw new Error(usage);
  const db = await openDatabase(config.MONGO_URL);
  try {
    return await addTokenChannel(db, new SecretBox(config.SECRETS_KEY), { allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK }, {
      organizationId: values.org,
      provider: values.provider,
      name: values.name,
      instanceUrl: values.instance,
      token: values.token,
      profile: values.profile,
      picture: values.picture,
    });
  } finally {
    await db.close();
  }
});
