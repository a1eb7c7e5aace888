// Runs the test suite's Mastodon simulator by hand, so the walking skeleton can be tried with curl
// without a real instance. Prints {"instance", "token"} and logs every status it receives.
// --scopes "write:statuses read:accounts" issues a narrower token, to see what Mastodon refuses.
import { parseArgs } from 'node:util';
import { MastodonSimulator } from '../test/simulators/mastodon-simulator.ts';

const { values } = parseArgs({
  options: { username: { type: 'string', default: 'sps' }, scopes: { type: 'string', default: 'read write' } },
});
const simulator = await new MastodonSimulator().start();
const scopes = values.scopes.split(/[\s,]+/).filter((scope) => scope !== '');
const token = simulator.addAccount(values.username, { scopes });
process.stdout.write(`${JSON.stringify({ instance: simulator.origin, token })}\n`);
simulator.onStatus = (status) => {
  process.stderr.write(`status ${status.id} (reply to ${status.in_reply_to_id ?? '-'}) ${status.url}: ${status.text}\n`);
};
process.on('SIGINT', () => { void simulator.stop().then(() => process.exit(0)); });
