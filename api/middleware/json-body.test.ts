import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../shared/domain/organizations/organizations.ts';
import { startStack, type RunningStack } from '../../test/support/stack.ts';
import { createTestContext, type TestContext } from '../../test/support/test-context.ts';

/** How JSON bodies are read: compressed or not, within the size and nesting limits, no prototype keys. */
describe('JSON request bodies', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  let apiKey: string;

  beforeAll(async () => {
    ctx = await createTestContext();
    stack = await startStack(ctx, { workers: false });
    ({ apiKey } = await createOrganization(ctx.db, ctx.secrets, { name: 'Bodies' }));
  });
  afterAll(async () => {
    await stack.close();
    await ctx.cleanup();
  });

  const post = async (body: Buffer, headers: Record<string, string> = {}) => {
    const response = await fetch(`${stack.baseUrl}/api/public/v1/webhooks`, {
      method: 'POST', body, headers: { Authorization: apiKey, 'Content-Type': 'application/json', ...headers },
    });
    return { status: response.status, body: await response.json() as Record<string, unknown> };
  };
  const webhook = (path: string) => Buffer.from(JSON.stringify({
    url: `https://hooks.example.invalid/${path}`, events: ['post.published'],
  }));

  it('reads a body sent as it is, gzipped or deflated', async () => {
    expect(await post(webhook('plain'))).toMatchObject({ status: 201 });
    expect(await post(gzipSync(webhook('gzip')), { 'Content-Encoding': 'gzip' })).toMatchObject({ status: 201 });
    const deflated = await post(deflateSync(webhook('deflate')), { 'Content-Encoding': 'deflate' });
    expect(deflated).toMatchObject({ status: 201 });
  });

  it('answers 415 for another encoding and 400 for compressed data that does not inflate', async () => {
    expect(await post(webhook('br'), { 'Content-Encoding': 'br' })).toMatchObject({
      status: 415, body: { error: 'unsupported_media_type', message: expect.stringContaining('"br"') as string },
    });
    expect(await post(webhook('broken'), { 'Content-Encoding': 'gzip' })).toMatchObject({
      status: 400, body: { error: 'invalid_json' },
    });
  });

  it('refuses a __proto__ key however it is spelled, and a body nested deeper than 2,048 levels', async () => {
    for (const key of ['__proto__', '\\u005f_proto__', '__pr\\u006fto__']) {
      const body = Buffer.from(`{"url":"https://hooks.example.invalid/p","events":[],"x":{"${key}":{"admin":true}}}`);
      expect(await post(body), key).toMatchObject({ status: 400, body: { error: 'invalid_json' } });
    }
    const deep = Buffer.from(`{"url":${'['.repeat(2_049)}${']'.repeat(2_049)}}`);
    expect(await post(deep)).toMatchObject({
      status: 400,
      body: { error: 'validation_failed', details: [{ path: 'body', message: 'nested more than 2048 levels deep' }] },
    });
    // As deep as allowed, it is parsed and the schema says what is wrong with it.
    const allowed = Buffer.from(`{"url":${'['.repeat(2_047)}${']'.repeat(2_047)}}`);
    const parsed = await post(allowed);
    expect(parsed).toMatchObject({ status: 400, body: { error: 'validation_failed' } });
    expect(parsed.body.details).toContainEqual(expect.objectContaining({ path: 'url' }));
  });
});
