import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedChannel, startTikTokWithCreators } from '../../../test/simulators/tiktok/tiktok-test-accounts.ts';
import type { RunningTikTokSimulator } from '../../../test/simulators/tiktok/tiktok-simulator.ts';
import { sampleMp4 } from '../../../test/support/sample-media.ts';

/**
 * The simulator refuses what TikTok refuses (oauth-majors.md 8.2, 8.5, 8.7), so the adapter
 * tests that pass against it mean something: raw requests here, no SPS code in between.
 */
const mb = 1024 * 1024;
let sim: RunningTikTokSimulator;

beforeAll(async () => { sim = await startTikTokWithCreators(); });
afterAll(async () => { await sim.close(); });

async function call(token: string, path: string, json: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json; charset=UTF-8' },
    body: JSON.stringify(json),
  });
  return { status: response.status, body: await response.json() };
}

const init = (token: string, sourceInfo: Record<string, unknown>, privacy = 'SELF_ONLY') =>
  call(token, '/v2/post/publish/video/init/', {
    post_info: { title: 'Rules', privacy_level: privacy },
    source_info: { source: 'FILE_UPLOAD', ...sourceInfo },
  });

const errorOf = (body: unknown) => (body as { error: { code: string; message: string } }).error;
const uploadUrlOf = (body: unknown) => (body as { data: { upload_url: string; publish_id: string } }).data;

describe('the TikTok simulator\'s Content Posting rules', () => {
  it('refuses chunk plans TikTok refuses', async () => {
    const { accessToken } = await connectedChannel(sim, 'ada');
    const small = await init(accessToken, { video_size: 1000, chunk_size: 500, total_chunk_count: 2 });
    expect([small.status, errorOf(small.body).code]).toEqual([400, 'invalid_params']);
    const count = await init(accessToken, { video_size: 12 * mb, chunk_size: 5 * mb, total_chunk_count: 3 });
    expect(errorOf(count.body).message).toBe('total_chunk_count must be floor(video_size / chunk_size) = 2');
    const tiny = await init(accessToken, { video_size: 12 * mb, chunk_size: mb, total_chunk_count: 12 });
    expect(errorOf(tiny.body).message).toBe('chunk_size must be between 5 MB and 64 MB');
  });

  it('takes chunks only in order, with the type, range and length announced', async () => {
    const { accessToken } = await connectedChannel(sim, 'ada');
    const bytes = sampleMp4(11 * mb);
    const started = await init(accessToken, { video_size: bytes.length, chunk_size: 5 * mb, total_chunk_count: 2 });
    const { upload_url: uploadUrl, publish_id: publishId } = uploadUrlOf(started.body);
    const put = (first: number, last: number, type = 'video/mp4') => fetch(uploadUrl, {
      method: 'PUT',
      headers: {
        'Content-Type': type,
        'Content-Range': `bytes ${String(first)}-${String(last)}/${String(bytes.length)}`,
      },
      body: bytes.subarray(first, last + 1),
    });
    expect((await put(5 * mb, bytes.length - 1)).status).toBe(400);
    expect((await put(0, 5 * mb - 1, 'application/octet-stream')).status).toBe(400);
    expect((await put(0, 4 * mb - 1)).status).toBe(400);
    const status = await call(accessToken, '/v2/post/publish/status/fetch/', { publish_id: publishId });
    expect((status.body as { data: unknown }).data).toMatchObject({ status: 'PROCESSING_UPLOAD', uploaded_bytes: 0 });
    expect((await put(0, 5 * mb - 1)).status).toBe(206);
    expect((await put(5 * mb, bytes.length - 1)).status).toBe(201);
    const done = await call(accessToken, '/v2/post/publish/status/fetch/', { publish_id: publishId });
    expect((done.body as { data: unknown }).data).toMatchObject({ status: 'PUBLISH_COMPLETE' });
  });

  it('keeps a publish to its own creator, and six inits a minute to a token', async () => {
    const ada = await connectedChannel(sim, 'ada');
    const bea = await connectedChannel(sim, 'bea');
    const started = await init(ada.accessToken, { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 });
    const foreign = await call(bea.accessToken, '/v2/post/publish/status/fetch/', {
      publish_id: uploadUrlOf(started.body).publish_id,
    });
    expect(foreign.status).toBe(400);
    const plan = { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 };
    const answers = [];
    for (let index = 0; index < 6; index += 1) answers.push((await init(ada.accessToken, plan)).status);
    expect(answers).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('answers privacy_level_option_mismatch for a level the creator does not offer', async () => {
    const { accessToken } = await connectedChannel(sim, 'bea');
    const plan = { video_size: 1000, chunk_size: 1000, total_chunk_count: 1 };
    const refused = await init(accessToken, plan, 'PUBLIC_TO_EVERYONE');
    expect([refused.status, errorOf(refused.body).code]).toEqual([400, 'privacy_level_option_mismatch']);
  });
});
