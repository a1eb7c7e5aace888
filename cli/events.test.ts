import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../shared/domain/organizations/organizations.ts';
import { WebhookOutbox } from '../shared/domain/webhooks/webhook-outbox.ts';
import { startStack, waitFor, type RunningStack } from '../test/support/stack.ts';
import { createTestContext, type TestContext } from '../test/support/test-context.ts';
import { removeTemporaryFolders, runCli, stdoutJson, temporaryHome, type CliRun } from './test/run-cli.ts';

interface EventPage {
  events: { cursor: string; type: string; data: { name: string } }[];
  cursor: string | null;
  hasMore: boolean;
}

describe('sps events:list against the api', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;
  const home = temporaryHome();

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    const organization = await createOrganization(ctx.db, ctx.secrets, { name: 'Polling' });
    apiKey = organization.apiKey;
    const outbox = new WebhookOutbox({ db: ctx.db, logger: ctx.logger, now: () => new Date() });
    for (const name of ['first', 'second', 'third']) {
      await outbox.emit(organization.organizationId, 'channel.refreshed', {
        channelId: '0123456789abcdef01234567', provider: 'x', name,
        refreshedAt: new Date().toISOString(), expiresAt: null,
      });
    }
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
    removeTemporaryFolders();
  });

  const sps = (args: string[]): Promise<CliRun> =>
    runCli(args, { home, env: { SERVICE_API_KEY: apiKey, SERVICE_API_URL: `${stack.baseUrl}/api` } });

  it('prints the events oldest first, and with --after only those after the cursor', async () => {
    const all = await waitFor(async () => {
      const page = stdoutJson(await sps(['events:list', '--limit', '2'])) as EventPage;
      return page.events.length === 2 ? page : undefined;
    }, { what: 'the events to settle', timeoutMs: 20_000 });
    expect(all.events.map((event) => event.data.name)).toEqual(['first', 'second']);
    expect(all.hasMore).toBe(true);
    const rest = stdoutJson(await sps(['events:list', '--after', all.cursor ?? ''])) as EventPage;
    expect(rest.events.map((event) => event.data.name)).toEqual(['third']);
    expect(rest.hasMore).toBe(false);
  });

  it('shows the server\'s refusal of a cursor that is not one', async () => {
    const refused = await sps(['events:list', '--after', 'not-a-cursor']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/validation_failed, HTTP 400/);
  });
});
