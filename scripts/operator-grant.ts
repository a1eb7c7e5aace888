// Makes a dashboard account an operator (Bull Board at /admin/queues), or with --revoke takes the role back.
import { parseArgs } from 'node:util';
import { openDatabase } from '../shared/db/database.ts';
import { setOperator } from '../shared/domain/accounts/operators.ts';
import { runScript } from './local/run-script.ts';

const usage = 'usage: npm run operator:grant -- --email <account email> [--revoke]';

await runScript(async (config) => {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, revoke: { type: 'boolean', default: false } },
    strict: true,
  });
  if (values.email === undefined) throw new Error(usage);
  const db = await openDatabase(config.MONGO_URL);
  try {
    const operator = !values.revoke;
    if (!(await setOperator(db, values.email, operator))) {
      throw new Error(`no dashboard account has the email ${values.email}; sign up first`);
    }
    return { email: values.email.trim().toLowerCase(), operator };
  } finally {
    await db.close();
  }
});
