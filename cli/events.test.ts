import { beforeAll, describe, expect, it } from 'vitest';
import { WebhookOutbox } from '../shared/domain/webhooks/webhook-outbox.ts';
import { waitFor } from '../test/support/stack.ts';
import { useCliAgainstApi } from '../test/support/cli-against-api.ts';
import { stdoutJson } from './test/run-cli.ts';

interface EventPage {
  events: { cursor: string; type: string; data: { name: string } }[];
  cursor: string | null;
  hasMore: boolean;
}

describe('sps events:list against the api', () => {
  const cli = useCliAgainstApi('Polling');
  const { sps } = cli;

  beforeAll(async () => {
    const outbox = new WebhookOutbox({ db: cli.ctx.db, logger: cli.ctx.logger, now: () => new Date() });
    for (const name of ['first', 'second', 'third']) {
      await outbox.emit(cli.organizationId, 'channel.refreshed', {
        channelId: '0123456789abcdef01234567', provider: 'x', name,
        refreshedAt: new Date().toISOString(), expiresAt: null,
      });
    }
  });

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
