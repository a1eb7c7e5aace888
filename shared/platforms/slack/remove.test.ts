import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedSlack } from '../../../test/simulators/slack/slack-connected.ts';
import type { RunningSlackSimulator } from '../../../test/simulators/slack/slack-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter } from '../kit/platform-adapter.ts';
import { createSlackAdapter } from './adapter.ts';

const general = 'C0GENERAL';

describe('Slack adapter: removing messages with chat.delete', () => {
  let slack: RunningSlackSimulator;
  let channel: ChannelCredentials;
  let adapter: PlatformAdapter;

  beforeAll(async () => {
    const connected = await connectedSlack();
    ({ slack, channel } = connected);
    adapter = createSlackAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, connected.app);
  });
  afterAll(async () => { await slack.close(); });

  const part = (content: string) => ({
    channel, content, media: [], settings: { channel: general }, idempotencyKey: content,
    checkpoint: memoryCheckpoint(),
  });

  it('deletes the reply, then the message; a second removal finds it gone', async () => {
    const root = await adapter.publish(part('Slack, soon gone'));
    const reply = await adapter.comment({ ...part('Its reply'), parentReleaseId: root.releaseId });
    await adapter.remove?.(channel, { releaseId: reply.releaseId, settings: {} });
    await adapter.remove?.(channel, { releaseId: root.releaseId, settings: {} });
    expect(slack.records.withText('Slack, soon gone')).toEqual([]);
    expect(slack.records.withText('Its reply')).toEqual([]);
    expect(slack.calls('chat.delete')).toHaveLength(2);
    await expect(adapter.remove?.(channel, { releaseId: root.releaseId, settings: {} })).resolves.toBeUndefined();
  });
});
