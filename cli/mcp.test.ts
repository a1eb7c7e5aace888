import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { organizationWithMastodon } from '../test/support/fixtures.ts';
import { useSimulatedStack } from '../test/support/simulated-stack.ts';
import { toolCatalog } from '../api/mcp/tool-catalog.ts';
import { binPath, removeTemporaryFolders, temporaryHome } from './test/run-cli.ts';

/** `sps mcp` as a desktop agent runs it: a child process spoken to over stdio by the SDK's client. */
describe('sps mcp (stdio)', () => {
  const world = useSimulatedStack({ workers: false });
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    removeTemporaryFolders();
  });

  async function connect(apiKey: string | undefined): Promise<Client> {
    const env: Record<string, string> = { HOME: temporaryHome(), PATH: process.env.PATH ?? '' };
    if (apiKey !== undefined) {
      env.SERVICE_API_KEY = apiKey;
      env.SERVICE_API_URL = `${world.stack.baseUrl}/api`;
    }
    const transport = new StdioClientTransport({
      command: process.execPath, args: [binPath, 'mcp'], env, stderr: 'pipe',
    });
    const client = new Client({ name: 'sps-test-desktop-agent', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return await client.callTool({ name, arguments: args }) as CallToolResult;
  }

  function errorOf(result: CallToolResult): { error: string; message: string } {
    expect(result.isError).toBe(true);
    const [first] = result.content;
    return JSON.parse(first?.type === 'text' ? first.text : '{}') as { error: string; message: string };
  }

  it('offers the same tools as /mcp and runs them against the API with the CLI\'s credential', async () => {
    const token = world.simulator.addAccount(`stdio${Math.random().toString(36).slice(2, 8)}`);
    const org = await organizationWithMastodon(world.ctx, world.simulator.origin, token);
    const client = await connect(org.apiKey);

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(toolCatalog.map((spec) => spec.name));
    const listed = await call(client, 'list_channels', {});
    expect(listed.structuredContent).toEqual({ channels: [expect.objectContaining({ id: org.channelId }) as object] });

    const text = `From a desktop agent ${Date.now()}`;
    const args = { type: 'draft', posts: [{ integration: { id: org.channelId }, value: [{ content: text }] }] };
    const first = await call(client, 'create_posts', args);
    const again = await call(client, 'create_posts', args);
    expect(again.structuredContent).toEqual(first.structuredContent);
    expect(await world.ctx.db.posts.countDocuments({ content: text })).toBe(1);

    expect(errorOf(await call(client, 'get_post', { id: 'no-such-post' })).error).toBe('not_found');
    expect(errorOf(await call(client, 'create_posts', { type: 'now' })).error).toBe('validation_failed');
    expect(errorOf(await call(client, 'publish_everywhere', {})).error).toBe('tool_not_found');
  });

  it('does not start without a credential', async () => {
    await expect(connect(undefined)).rejects.toThrow();
  });
});
