import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevtoSimulator, type RunningDevtoSimulator } from '../../../test/simulators/devto/devto-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials } from '../kit/platform-adapter.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createDevtoAdapter } from './adapter.ts';

const channel: ChannelCredentials = { channelId: 'c1', accessToken: 'ada-key', instanceUrl: null };
const grace: ChannelCredentials = { channelId: 'c2', accessToken: 'grace-key', instanceUrl: null };
let devto: RunningDevtoSimulator;
let adapter: ReturnType<typeof createDevtoAdapter>;

beforeAll(async () => {
  devto = await startDevtoSimulator([
    { id: 1234, username: 'ada', name: 'Ada', profileImage: 'https://media.dev.to/a.png', apiKeys: ['ada-key'] },
    { id: 5, username: 'grace', name: 'Grace', profileImage: 'https://media.dev.to/g.png', apiKeys: ['grace-key'] },
  ]);
  adapter = createDevtoAdapter({ timeoutMs: 2_000, userHosts: connectionPolicyFor(true) }, { apiUrl: devto.apiUrl });
});
afterAll(async () => { await devto.close(); });

describe('dev.to: removing articles by unpublishing them', () => {
  it('turns the published article back into a draft with PUT /api/articles/:id', async () => {
    const article = await adapter.publish({
      channel, content: 'Soon a draft again', media: [], settings: { title: 'Unpublish me', published: true },
      idempotencyKey: 'k1', checkpoint: memoryCheckpoint(),
    });
    await adapter.remove?.(channel, { releaseId: article.releaseId, settings: {} });
    expect(devto.articles.find((item) => String(item.id) === article.releaseId)?.published).toBe(false);
    expect(devto.requestsTo(`PUT /api/articles/${article.releaseId}`)).toHaveLength(1);
    // Unknown to the key's owner (Forem's 404): nothing of theirs left to take down.
    await expect(adapter.remove?.(grace, { releaseId: article.releaseId, settings: {} })).resolves.toBeUndefined();
    expect(devto.articles.find((item) => String(item.id) === article.releaseId)?.published).toBe(false);
    const malformed = await adapter.remove?.(channel, { releaseId: 'abc', settings: {} })
      .catch((error: unknown) => error);
    expect((malformed as PlatformError).kind).toBe('permanent');
  });
});
