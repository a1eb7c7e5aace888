import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startDribbbleSimulator, type DribbbleSimulator,
} from '../../../test/simulators/dribbble/dribbble-simulator.ts';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import { createDribbbleAdapter } from './adapter.ts';
import { dribbbleConnect } from './connect.ts';
import { synthesizedMedia } from '../../../test/support/synthesized-media.ts';

describe('Dribbble adapter: removing shots', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sps-dribbble-remove-'));
  let sim: DribbbleSimulator;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;
  let shot: PublishMedia;

  beforeAll(async () => {
    const file = path.join(dir, 'shot.png');
    const source = ['-f', 'lavfi', '-i', 'color=c=teal:s=800x600'];
    synthesizedMedia([...source, '-frames:v', '1'], file);
    const bytes = readFileSync(file);
    shot = {
      kind: 'image', mimeType: 'image/png', size: bytes.length, fileName: 'shot.png', alt: null,
      url: 'http://127.0.0.1/uploads/shot.png', open: () => Promise.resolve(Readable.from([bytes])),
    };
    sim = await startDribbbleSimulator();
    sim.addUser({ id: 1, name: 'Dan', login: 'simplebits', can_upload_shot: true, avatar_url: '', teams: [] });
    sim.authority.consentingUser = '1';
    const { url } = sim;
    const app = {
      clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null,
    };
    const context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const { tokens } = await authorizeAndConnect(dribbbleConnect, context);
    channel = { channelId: 'c1', accessToken: tokens.accessToken, instanceUrl: null };
    adapter = createDribbbleAdapter({ timeoutMs: 1_000, userHosts: connectionPolicyFor(false) }, app);
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes the shot with DELETE /v2/shots/:id; a second removal finds it gone', async () => {
    const published = await adapter.publish({
      channel, content: 'A shot to delete', media: [shot], settings: { title: 'Teal' }, idempotencyKey: 'k1',
      checkpoint: memoryCheckpoint(),
    });
    expect(sim.shots.items.map((item) => String(item.id))).toContain(published.releaseId);
    await adapter.remove?.(channel, { releaseId: published.releaseId, settings: {} });
    expect(sim.shots.items.map((item) => String(item.id))).not.toContain(published.releaseId);
    expect(sim.requestsTo('DELETE /v2/shots/:id')).toHaveLength(1);
    await expect(adapter.remove?.(channel, { releaseId: published.releaseId, settings: {} })).resolves.toBeUndefined();
  });
});
