// Runs the test suite's Mastodon simulator by hand, so the walking skeleton can be tried without
// a real instance. Prints {"instance"}; its consent page approves at once as --username, and it
// logs every status it receives.
import { parseArgs } from 'node:util';
import { MastodonSimulator } from '../test/simulators/mastodon/mastodon-simulator.ts';

const { values } = parseArgs({ options: { username: { type: 'string', default: 'sps' } } });
const simulator = await new MastodonSimulator().start();
simulator.apps.consentingUser = values.username;
process.stdout.write(`${JSON.stringify({ instance: simulator.origin })}\n`);
simulator.onStatus = (status) => {
  process.stderr.write(`status ${status.id} (reply to ${status.in_reply_to_id ?? '-'}) ${status.url}: ${status.text}\n`);
};
process.on('SIGINT', () => { void simulator.stop().then(() => process.exit(0)); });
