import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTokenChannel } from '../shared/domain/channels/channels.ts';
import { findOrCreateCustomer } from '../shared/domain/customers/customers.ts';
import type { MastodonSimulator } from '../test/simulators/mastodon/mastodon-simulator.ts';
import { organizationWithMastodon } from '../test/support/fixtures.ts';
import type { RunningStack } from '../test/support/stack.ts';
import { useSimulatedStack } from '../test/support/simulated-stack.ts';
import type { TestContext } from '../test/support/test-context.ts';
import { removeTemporaryFolders, runCli, stdoutJson, temporaryHome, type CliRun } from './test/run-cli.ts';

describe('sps integrations:* against the api', () => {
  const world = useSimulatedStack();
  let ctx: TestContext;
  let stack: RunningStack;
  let simulator: MastodonSimulator;
  let org: { apiKey: string; organizationId: string; channelId: string };
  const home = temporaryHome();

  beforeAll(async () => {
    ({ ctx, stack, simulator } = world);
    org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('channels'));
  });
  afterAll(() => { removeTemporaryFolders(); });

  const sps = (...args: string[]): Promise<CliRun> => runCli(args, { home, env: { SERVICE_API_KEY: org.apiKey, SERVICE_API_URL: `${stack.baseUrl}/api` } });

  it('integrations:list prints the channels, and --customer filters them', async () => {
    const channels = (stdoutJson(await sps('integrations:list')) as { id: string; identifier: string; name: string }[]);
    expect(channels).toEqual([expect.objectContaining({ id: org.channelId, identifier: 'mastodon', name: 'Our Mastodon' })]);
    const customer = await findOrCreateCustomer(ctx.db, org.organizationId, 'Client B');
    expect(stdoutJson(await sps('integrations:list', '--customer', customer._id.toString()))).toEqual([]);
    // A filter that answers nothing proves little: one channel of that customer must come back alone.
    const clientChannel = await addTokenChannel(ctx.db, ctx.secrets, { allowPrivateNetwork: true }, {
      organizationId: org.organizationId,
      provider: 'mastodon',
      name: 'For client B',
      instanceUrl: simulator.origin,
      token: simulator.addAccount('client-b'),
      customer: 'Client B',
    });
    expect(stdoutJson(await sps('integrations:list', '--customer', customer._id.toString()))).toEqual([
      expect.objectContaining({
        id: clientChannel.id, name: 'For client B', customer: { id: customer._id.toString(), name: 'Client B' },
      }),
    ]);
    expect((stdoutJson(await sps('integrations:list')) as unknown[])).toHaveLength(2);
  });

  it('integrations:settings prints the platform\'s rules and tools; an unknown channel is 404', async () => {
    const settings = (stdoutJson(await sps('integrations:settings', org.channelId)) as { output: { maxLength: number; tools: { methodName: string }[] } });
    expect(settings.output.maxLength).toBe(500);
    expect(settings.output.tools.map((tool) => tool.methodName)).toContain('instanceLimits');
    const unknown = await sps('integrations:settings', '000000000000000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: .*\(not_found, HTTP 404\)$/m);
  });

  it('integrations:health prints the channel\'s health and its actions; an unknown channel is 404', async () => {
    const health = stdoutJson(await sps('integrations:health', org.channelId));
    expect(health).toMatchObject({ id: org.channelId, status: 'healthy', actions: [{ code: 'none' }] });
    const unknown = await sps('integrations:health', '000000000000000000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^Error: .*\(not_found, HTTP 404\)$/m);
  });

  it('integrations:trigger runs a tool with --data; an unknown tool shows the server\'s message', async () => {
    const result = stdoutJson(await sps('integrations:trigger', org.channelId, 'instanceLimits', '--data', '{"unused": true}'));
    expect(result).toMatchObject({ output: { maxCharacters: 500, maxMediaAttachments: 4 } });
    const unknown = await sps('integrations:trigger', org.channelId, 'flairs');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`Mastodon has no tool "flairs"; see GET /integration-settings/${org.channelId} (tool_not_found, HTTP 404)`);
    const badData = await sps('integrations:trigger', org.channelId, 'instanceLimits', '--data', '[1, 2]');
    expect(badData.code).toBe(1);
    expect(badData.stderr).toContain('expected a JSON object');
  });
});
