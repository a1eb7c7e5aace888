import { Types } from 'mongoose';
import { expect } from 'vitest';
import { errorBodySchema } from '../../api/public/common-schemas.ts';
import { addTokenChannel } from '../../shared/domain/channels/channels.ts';
import { api, organizationWithMastodon } from './fixtures.ts';
import type { SimulatedStack } from './simulated-stack.ts';

export const v1 = '/api/public/v1';

/** Every error answer is `{statusCode, error, message}` with statusCode equal to the HTTP status. */
export function expectError(response: { status: number; body: unknown; headers: Headers }, status: number, code: string): string {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { statusCode: status, error: code } });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const parsed = errorBodySchema.parse(response.body);
  expect(parsed.message.trim()).not.toBe('');
  return parsed.message;
}

/** What the channel route tests build their cases from, over one simulated stack. */
export function channelTestKit(world: SimulatedStack) {
  const call = (apiKey: string | null, path: string, init: { method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) => api(world.stack.baseUrl, apiKey, `${v1}${path}`, init);

  /** A fresh organization with a Mastodon channel on the simulator, under its own account. */
  async function mastodonOrg(): Promise<{ apiKey: string; organizationId: string; channelId: string; token: string }> {
    const token = world.simulator.addAccount(`acct${Math.random().toString(36).slice(2, 8)}`);
    const org = await organizationWithMastodon(world.ctx, world.simulator.origin, token);
    return { apiKey: org.apiKey, organizationId: org.organizationId, channelId: org.channelId, token };
  }

  /** A channel of a platform SPS has no token flow for, stored the way a future OAuth flow would. */
  async function insertChannel(organizationId: string, provider: string): Promise<string> {
    const channel = await world.ctx.db.channels.create({ organizationId: new Types.ObjectId(organizationId), provider, name: `Our ${provider}`, tokenSealed: world.ctx.secrets.seal('x') });
    return channel._id.toString();
  }

  async function addMastodonChannel(organizationId: string, name: string, customer?: string): Promise<string> {
    const token = world.simulator.addAccount(name.replaceAll(' ', ''));
    return (await addTokenChannel(world.ctx.db, world.ctx.secrets, { allowPrivateNetwork: true }, { organizationId, provider: 'mastodon', name, instanceUrl: world.simulator.origin, token, customer })).id;
  }

  async function schedulePost(apiKey: string, channelId: string, date: Date, value: { content: string; delay?: number }[] = [{ content: 'Scheduled' }]): Promise<string> {
    const response = await call(apiKey, '/posts', { method: 'POST', body: { type: 'schedule', date: date.toISOString(), posts: [{ integration: { id: channelId }, value }] } });
    expect(response.status).toBe(201);
    return (response.body as { postId: string }[])[0]?.postId ?? '';
  }

  return { call, mastodonOrg, insertChannel, addMastodonChannel, schedulePost };
}
