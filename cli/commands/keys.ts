import { InvalidArgumentError, type Command } from 'commander';
import { segment } from '../api-client.ts';
import { requestAndPrint } from '../api-command.ts';
import { defineCommand } from '../command-definition.ts';

/** The server checks the names (400 naming the bad one); this list is only for --help. */
const scopeNames = 'read, posts, uploads, analytics, webhooks, integrations';

/** `--scope posts --scope uploads` and `--scope posts,uploads` both add scopes. */
function scopeList(value: string, previous: string[] | undefined): string[] {
  const names = value.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) throw new InvalidArgumentError(`expected a scope: ${scopeNames}`);
  return [...(previous ?? []), ...names];
}

/** A date (`2030-01-31`, midnight UTC) or a date and time with its offset, sent as ISO 8601. */
function expiry(value: string): string {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const withOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value);
  const at = new Date(dateOnly ? `${value}T00:00:00Z` : value);
  if ((!dateOnly && !withOffset) || Number.isNaN(at.getTime())) {
    throw new InvalidArgumentError('expected a date like 2030-01-31 or a time like 2030-01-31T12:00:00Z');
  }
  return at.toISOString();
}

export function registerKeyCommands(program: Command): void {
  defineCommand(
    program, 'keys:list', 'List the organization\'s named API keys: scopes, expiry, last use', 'sps keys:list',
  )
    .action(async () => {
      await requestAndPrint({ method: 'GET', path: '/api-keys' });
    });
  defineCommand(
    program, 'keys:create', 'Create a named API key; the key is printed once, in "key"',
    'sps keys:create --name scheduler --scope posts --scope uploads --expires 2030-01-31',
  )
    .requiredOption('--name <name>', 'what the key is for')
    .requiredOption('--scope <scope>', `a scope (repeat, or separate with commas): ${scopeNames}`, scopeList)
    .option('--expires <when>', 'when the key stops working: a date (midnight UTC) or an ISO 8601 time', expiry)
    .action(async (options: { name: string; scope: string[]; expires?: string }) => {
      await requestAndPrint({
        method: 'POST',
        path: '/api-keys',
        body: {
          name: options.name, scopes: options.scope,
          ...(options.expires === undefined ? {} : { expiresAt: options.expires }),
        },
      });
    });
  defineCommand(program, 'keys:revoke', 'Revoke one named API key; the others keep working', 'sps keys:revoke <keyId>')
    .argument('<id>', 'key id (from keys:list)')
    .action(async (id: string) => {
      await requestAndPrint({ method: 'DELETE', path: `/api-keys/${segment(id)}` });
    });
}
