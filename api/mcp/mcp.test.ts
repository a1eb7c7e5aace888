import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../shared/domain/api-keys/api-keys.ts';
import { api, organizationWithMastodon } from '../../test/support/fixtures.ts';
import { useSimulatedStack } from '../../test/support/simulated-stack.ts';
import { waitFor } from '../../test/support/stack.ts';
import { makeSmallMedia } from '../../test/support/small-media.ts';
import { toolCatalog } from './tool-catalog.ts';

interface Failure { error: string; message: string; details?: { path: string; message: string }[] }

/** The MCP endpoint through the SDK's own client, as an agent's host would use it. */
describe('MCP over Streamable HTTP (/mcp)', () => {
  // The video wait is short so generate_video answers pending and the agent follows the media.
  const world = useSimulatedStack({ overrides: { VIDEO_WAIT_MS: '1' } });
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
  });

  async function organization() {
    const token = world.simulator.addAccount(`mcp${Math.random().toString(36).slice(2, 8)}`);
    return organizationWithMastodon(world.ctx, world.simulator.origin, token);
  }

  async function connect(credential: string): Promise<Client> {
    const client = new Client({ name: 'sps-test-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${world.stack.baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: credential } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return await client.callTool({ name, arguments: args }) as CallToolResult;
  }

  /** The structured output of a call that succeeded; callers say what shape they read it as. */
  function structured(result: CallToolResult): Record<string, unknown> {
    expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
    return result.structuredContent ?? {};
  }

  function failure(result: CallToolResult): Failure {
    expect(result.isError).toBe(true);
    const [first] = result.content;
    if (first?.type !== 'text') throw new Error('a tool error carries its JSON as text');
    return JSON.parse(first.text) as Failure;
  }

  const postsWith = (text: string) => world.ctx.db.posts.countDocuments({ content: text, deletedAt: null });

  it('lists every tool with its input and output schemas and its annotations, and the platform rules', async () => {
    const org = await organization();
    const client = await connect(org.apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(toolCatalog.map((spec) => spec.name));
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.annotations, tool.name).toMatchObject({
        readOnlyHint: expect.any(Boolean) as boolean, destructiveHint: expect.any(Boolean) as boolean,
        idempotentHint: expect.any(Boolean) as boolean,
      });
    }
    const create = tools.find((tool) => tool.name === 'create_posts');
    expect(create?.inputSchema.required).toEqual(expect.arrayContaining(['type', 'posts']));
    expect(tools.find((tool) => tool.name === 'delete_post')?.annotations?.destructiveHint).toBe(true);

    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain('sps://platforms');
    const read = await client.readResource({ uri: 'sps://platforms/mastodon' });
    const [content] = read.contents;
    const mastodon = JSON.parse(content !== undefined && 'text' in content ? content.text : '{}') as object;
    expect(mastodon).toMatchObject({
      identifier: 'mastodon', textLimit: 500, replies: 'thread', removal: { supported: true, method: 'delete' },
    });
  });

  it('runs an agent session: channels, an image by URL, a thread published, analytics, deleting', async () => {
    const org = await organization();
    const client = await connect(org.apiKey);
    // The image an agent found on the web, served here (test contexts may reach loopback).
    const small = makeSmallMedia();
    const files = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'image/png' }).end(readFileSync(small.png));
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    const imageUrl = `http://127.0.0.1:${String((files.address() as AddressInfo).port)}/photo.png`;
    const { channels } = (structured(
      await call(client, 'list_channels', {})) as { channels: { id: string; identifier: string }[] });
    expect(channels).toEqual([expect.objectContaining({ id: org.channelId, identifier: 'mastodon' })]);

    const uploaded = structured(await call(client, 'upload_from_url', { url: imageUrl })) as { media: { id: string } };
    const image = await waitFor(async () => {
      const media = structured(await call(client, 'get_media', { id: uploaded.media.id })) as {
        id: string; status: string; path: string;
      };
      return media.status === 'pending' ? undefined : media;
    }, { what: 'the image fetched' });
    expect(image.status).toBe('ready');
    files.close();
    small.remove();

    const text = `Hello from an agent ${String(Date.now())}`;
    const picture = { id: image.id, path: image.path };
    const thread = [{ content: text }, { content: `${text}, with a picture`, image: [picture] }];
    const posts = [{ integration: { id: org.channelId }, value: thread }];
    const mediaBefore = world.simulator.media.length;
    const tooLong = [{ integration: { id: org.channelId }, value: [{ content: 'x'.repeat(600) }] }];
    const valid = structured(await call(client, 'validate_posts', { type: 'now', posts }));
    expect(valid).toEqual({ valid: true, problems: [] });
    const refused = structured(await call(client, 'validate_posts', { type: 'now', posts: tooLong }));
    expect(refused).toMatchObject({ valid: false, problems: [{ code: 'validation_failed' }] });

    const created = structured(await call(client, 'create_posts', { type: 'now', posts })) as {
      posts: { postId: string; integration: string }[];
    };
    const postId = created.posts[0]?.postId ?? '';
    expect(created.posts).toEqual([{ postId, integration: org.channelId }]);
    const published = await waitFor(async () => {
      const answer = await call(client, 'get_post', { id: postId });
      const post = structured(answer) as { state: string; releaseURL: string | null };
      return post.state === 'PUBLISHED' ? post : undefined;
    }, { what: 'the post to be published', timeoutMs: 30_000 });
    expect(published.releaseURL).not.toBeNull();
    expect(world.simulator.statuses.some((status) => status.text === text)).toBe(true);
    expect(world.simulator.media.length).toBe(mediaBefore + 1);
    // Analytics are read from stored readings: none gathered yet, and the answers say so by shape.
    for (const [tool, id] of [['channel_analytics', org.channelId], ['post_analytics', postId]] as const) {
      expect(structured(await call(client, tool, { id, date: '7' }))).toHaveProperty('analytics');
    }

    expect(structured(await call(client, 'delete_post', { id: postId }))).toEqual({ id: postId, deleted: true });
    expect(failure(await call(client, 'get_post', { id: postId })).error).toBe('not_found');
  });

  it('answers every read tool with what its output schema says (the SDK client checks each answer)', async () => {
    const org = await organization();
    const client = await connect(org.apiKey);
    const reads: [string, Record<string, unknown>][] = [
      ['get_channel_health', { id: org.channelId }],
      ['get_channel_settings', { id: org.channelId }],
      ['list_posts', { startDate: '2020-01-01T00:00:00Z', endDate: '2020-12-31T00:00:00Z' }],
      ['list_notifications', { page: '0' }],
      ['channel_analytics', { id: org.channelId, date: '7' }],
    ];
    for (const [name, args] of reads) structured(await call(client, name, args));
    expect(structured(await call(client, 'list_posts', {
      startDate: '2020-01-01T00:00:00Z', endDate: '2020-12-31T00:00:00Z',
    }))).toEqual({ posts: [], cursor: null }); // paged for agents: 100 a call unless `limit` says otherwise
    expect(failure(await call(client, 'get_media', { id: 'no-such-media' })).error).toBe('not_found');
    const stream = await api(world.stack.baseUrl, org.apiKey, '/mcp', { headers: { Accept: 'text/event-stream' } });
    expect(stream).toMatchObject({ status: 405, body: { error: 'method_not_allowed' } });
  });

  it('generates a video an agent follows with get_media until it is ready, once per identical call', async () => {
    const org = await organization();
    const client = await connect(org.apiKey);
    const voices = structured(await call(client, 'video_options', { functionName: 'voices', identifier: 'slides' }));
    const [voice] = (voices as { output: { id: string }[] }).output;
    const request = { type: 'slides', output: 'horizontal', customParams: { text: 'Hello.', voice: voice?.id } };
    const { media } = structured(await call(client, 'generate_video', request)) as { media: { id: string } };
    const ready = await waitFor(async () => {
      const shown = structured(await call(client, 'get_media', { id: media.id })) as { status: string };
      return shown.status === 'pending' ? undefined : shown;
    }, { timeoutMs: 60_000, what: 'the generated video' });
    expect(ready).toMatchObject({ id: media.id, status: 'ready', mimeType: 'video/mp4', width: 1920, height: 1080 });
    const again = structured(await call(client, 'generate_video', request)) as { media: { id: string } };
    expect(again.media.id).toBe(media.id);
    expect(await world.ctx.db.media.countDocuments({ organizationId: org.organizationId })).toBe(1);
  });

  it('creates one post when an agent repeats create_posts with the same arguments', async () => {
    const org = await organization();
    const client = await connect(org.apiKey);
    const text = `Said once ${Date.now()}`;
    const args = { type: 'draft', posts: [{ integration: { id: org.channelId }, value: [{ content: text }] }] };
    const first = (structured(await call(client, 'create_posts', args)) as { posts: { postId: string }[] });
    // The same arguments, their keys in another order: the same call.
    const again = (structured(
      await call(client, 'create_posts', { posts: args.posts, type: 'draft' })) as { posts: { postId: string }[] });
    expect(again).toEqual(first);
    expect(await postsWith(text)).toBe(1);
    const other = await call(client, 'create_posts', { ...args, tags: [{ value: 'b', label: 'B' }] });
    const otherId = (structured(other) as { posts: { postId: string }[] }).posts[0]?.postId;
    expect(otherId).not.toBe(first.posts[0]?.postId);
    expect(await postsWith(text)).toBe(2);
  });

  it('answers unknown tools, bad arguments and others\' ids with tool errors, making nothing', async () => {
    const org = await organization();
    const stranger = await organization();
    const client = await connect(org.apiKey);

    const unknown = failure(await call(client, 'publish_everywhere', {}));
    expect(unknown.error).toBe('tool_not_found');
    expect(unknown.message).toContain('create_posts');

    const text = `Never stored ${Date.now()}`;
    const badType = failure(await call(client, 'create_posts', {
      type: 'sometime', posts: [{ integration: { id: org.channelId }, value: [{ content: text }] }],
    }));
    expect(badType.error).toBe('validation_failed');
    expect(badType.details?.[0]?.path).toBe('type');
    const noPosts = failure(await call(client, 'create_posts', { type: 'now', posts: [] }));
    expect(noPosts).toMatchObject({ error: 'validation_failed', message: expect.stringContaining('posts') as string });
    expect(await postsWith(text)).toBe(0);

    const theirs = await api(world.stack.baseUrl, stranger.apiKey, '/api/public/v1/posts', {
      method: 'POST',
      body: { type: 'draft', posts: [{ integration: { id: stranger.channelId }, value: [{ content: 'Theirs' }] }] },
    });
    const theirPost = (theirs.body as { postId: string }[])[0]?.postId ?? '';
    expect(failure(await call(client, 'get_post', { id: theirPost })).error).toBe('not_found');
    expect(failure(await call(client, 'delete_post', { id: theirPost })).error).toBe('not_found');
    expect(failure(await call(client, 'create_posts', {
      type: 'draft', posts: [{ integration: { id: stranger.channelId }, value: [{ content: text }] }],
    })).error).toBe('not_found');
    expect(await world.ctx.db.posts.countDocuments({ _id: theirPost, deletedAt: null })).toBe(1);
    expect(await postsWith(text)).toBe(0);
  });

  it('answers 401 without a valid credential, before any MCP message is read', async () => {
    const initialize = {
      jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'anonymous', version: '1' } },
    };
    const headers = { Accept: 'application/json, text/event-stream' };
    const missing = await api(world.stack.baseUrl, null, '/mcp', { method: 'POST', body: initialize, headers });
    expect(missing).toMatchObject({ status: 401, body: { error: 'missing_credentials' } });
    const wrong = await api(world.stack.baseUrl, 'not-a-key', '/mcp', { method: 'POST', body: initialize, headers });
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_credentials' } });
    await expect(connect('not-a-key')).rejects.toThrow(/401/);
  });

  it('holds a named key to its scopes: a read-only key reads but cannot create', async () => {
    const org = await organization();
    const { secret } = await createApiKey(world.ctx.db, world.ctx.secrets, org.organizationId, {
      name: 'agent, read only', scopes: ['read'], expiresAt: null,
    }, new Date());
    const client = await connect(secret);
    expect((structured(await call(client, 'list_channels', {})) as { channels: unknown[] }).channels).toHaveLength(1);
    const text = `Not allowed ${Date.now()}`;
    const refused = failure(await call(client, 'create_posts', {
      type: 'now', posts: [{ integration: { id: org.channelId }, value: [{ content: text }] }],
    }));
    expect(refused.error).toBe('insufficient_scope');
    expect(refused.message).toContain('posts');
    expect(await postsWith(text)).toBe(0);
  });

  it('counts each tool call against the organization\'s hourly budget, and refuses one over it', async () => {
    const org = await organization();
    const rpc = async (id: number, method: string, params: Record<string, unknown>) =>
      api(world.stack.baseUrl, org.apiKey, '/mcp', {
        method: 'POST', body: { jsonrpc: '2.0', id, method, params },
        headers: { Accept: 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2025-06-18' },
      });
    const remaining = (answer: { headers: Headers }) => Number(answer.headers.get('X-RateLimit-Remaining'));
    const first = await rpc(1, 'tools/call', { name: 'list_channels', arguments: {} });
    expect(first.status).toBe(200);
    const listed = await rpc(2, 'tools/list', {});
    expect(listed.headers.get('X-RateLimit-Remaining')).toBeNull();
    const second = await rpc(3, 'tools/call', { name: 'get_post', arguments: { id: 'nothing-here' } });
    expect(remaining(second)).toBe(remaining(first) - 1);

    const redis = new Redis(world.ctx.config.REDIS_URL);
    try {
      const key = `${world.ctx.config.QUEUE_PREFIX}:rate-limit:org:${org.organizationId}`;
      await redis.set(key, String(world.ctx.config.PUBLIC_API_RATE_LIMIT), 'PX', 60_000);
    } finally {
      await redis.quit();
    }
    const client = await connect(org.apiKey);
    const limited = failure(await call(client, 'list_channels', {}));
    expect(limited).toMatchObject({ error: 'rate_limited', message: expect.stringContaining('rate limit') as string });
  });
});
