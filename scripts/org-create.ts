// Creates an organization and prints {"organizationId", "apiKey"}: the only time the key is shown in clear here.
import { parseArgs } from 'node:util';
import { SecretBox } from '../shared/crypto/secret-box.ts';
import { openDatabase } from '../shared/db/database.ts';
import { createOrganization } from '../shared/domain/organizations/organizations.ts';
import { runScript } from './local/run-script.ts';

const usage = 'usage: npm run org:create -- --name <organization name>';

await runScript(async (config) => {
  const { values } = parseArgs({ options: { name: { type: 'string' } }, strict: true });
  if (values.name === undefined) throw new Error(usage);
  const db = await openDatabase(config.MONGO_URL);
  try {
    return await createOrganization(db, new SecretBox(config.SECRETS_KEY), { name: values.name });
  } finally {
    await db.close();
  }
});
