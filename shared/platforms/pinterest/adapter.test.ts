import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { authorizeAndConnect } from '../../../test/simulators/kit/oauth-dance.ts';
import {
  startPinterestSimulator, type PinterestSimulator, type SimulatedPinterestUser,
} from '../../../test/simulators/pinterest/pinterest-simulator.ts';
import { memoryCheckpoint } from '../../../test/support/part-checkpoint.ts';
import { sampleMp4, solidPng } from '../../../test/support/sample-media.ts';
import { connectionPolicyFor } from '../../net/connection-policy.ts';
import type { ChannelCredentials, PlatformAdapter, PublishMedia } from '../kit/platform-adapter.ts';
import type { ConnectContext, OAuthConnect } from '../kit/platform-connect.ts';
import { PlatformError } from '../kit/platform-error.ts';
import { createPinterestAdapter } from './adapter.ts';
import { pinterestConnect } from './connect.ts';
import { readPinterestCredential } from './credential.ts';

const recipes = '549755885175001';
const workshop = '549755885175002';

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error: unknown = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

/** A file served in small, odd-sized chunks, so base64 groups straddle chunk edges. */
function file(bytes: Buffer, mimeType: string, fileName: string, alt: string | null = null): PublishMedia {
  const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, at) => bytes.subarray(at * 7, at * 7 + 7));
  const kind = mimeType.startsWith('video/') ? 'video' : 'image';
  return {
    kind, mimeType, size: bytes.length, fileName, alt, url: `http://127.0.0.1/uploads/${fileName}`,
    open: () => Promise.resolve(Readable.from(chunks)),
  };
}

const png = (size: number) => file(solidPng(size, [200, 30, 30]), 'image/png', `square-${String(size)}.png`);
const video = () => file(sampleMp4(50_000), 'video/mp4', 'clip.mp4');

describe('Pinterest adapter against the simulator', () => {
  let sim: PinterestSimulator;
  let context: ConnectContext;
  let adapter: PlatformAdapter;
  let channel: ChannelCredentials;
  let user: SimulatedPinterestUser;

  beforeAll(async () => {
    sim = await startPinterestSimulator();
    user = {
      id: '549755885175', username: 'maker', profile_image: 'https://i.pinimg.com/maker.jpg', account_type: 'BUSINESS',
      follower_count: 321,
      metrics: { IMPRESSION: 1200, SAVE: 40, PIN_CLICK: 75, OUTBOUND_CLICK: 12, ENGAGEMENT: 140 },
      boards: [
        { id: recipes, name: 'Recipes', privacy: 'PUBLIC', sections: [{ id: '770001', name: 'Soups' }] },
        { id: workshop, name: 'Workshop', privacy: 'PROTECTED' },
      ],
    };
    sim.addUser(user);
    sim.authority.consentingUser = user.id;
    const { url } = sim;
    const app = {
      clientId: sim.clientId, clientSecret: sim.clientSecret, apiUrl: url, authUrl: url, tokenUrl: url, botToken: null,
    };
    context = { app, timeoutMs: 2_000, userHosts: connectionPolicyFor(false) };
    const { authorized } = await authorizeAndConnect(pinterestConnect, context);
    channel = { channelId: 'c1', accessToken: authorized.accounts[0]?.accessToken ?? '', instanceUrl: null };
    adapter = createPinterestAdapter(
      { timeoutMs: 1_000, userHosts: connectionPolicyFor(false) },
      app,
      { firstWaitMs: 20, maxIntervalMs: 40, maxWaitMs: 400 },
    );
  });
  afterAll(async () => { await sim.close(); });
  beforeEach(() => {
    sim.media.processingReads = 1;
    sim.media.outcome = 'succeeded';
    sim.rateLimit.limit = 1_000;
  });

  function publish(
    content: string,
    media: PublishMedia[],
    settings: Record<string, unknown> = {},
    checkpoint = memoryCheckpoint(),
  ) {
    return adapter.publish({ channel, content, media, settings, idempotencyKey: `key-${content}`, checkpoint });
  }

  const pinsWith = (description: string) => sim.pins.items.filter((pin) => pin.description === description);

  it('pins an image to the channel\'s board, its bytes inlined as base64, with title, link and alt text', async () => {
    const image = file(solidPng(5, [0, 90, 200]), 'image/png', 'blue.png', 'A blue square');
    const settings = { title: 'Blue', link: 'https://example.com/blue' };
    const result = await publish('A blue square, pinned', [image], settings);
    const [pin] = pinsWith('A blue square, pinned');
    expect(result).toEqual({ releaseId: pin?.id, releaseURL: `https://www.pinterest.com/pin/${pin?.id ?? ''}/` });
    expect(pin).toMatchObject({
      boardId: recipes, title: 'Blue', link: 'https://example.com/blue', altText: 'A blue square', video: null,
    });
    expect(pin?.images.map(({ mimeType, width, height }) => ({ mimeType, width, height })))
      .toEqual([{ mimeType: 'image/png', width: 5, height: 5 }]);
    expect(pin?.images[0]?.bytes.equals(solidPng(5, [0, 90, 200]))).toBe(true);
    const sent = sim.requestsTo('POST /v5/pins').at(-1);
    expect(sent?.headers['content-length']).toBe(String(sent?.raw.length));
  });

  it('pins to the board and section the settings name', async () => {
    await publish('Into the soup section', [png(3)], { board_section_id: '770001', dominant_color: '#6E7874' });
    await publish('Onto the workshop board', [png(3)], { board_id: workshop });
    expect(pinsWith('Into the soup section')[0]).toMatchObject({ boardId: recipes, boardSectionId: '770001' });
    expect(pinsWith('Onto the workshop board')[0]).toMatchObject({ boardId: workshop, boardSectionId: null });
  });

  it('makes a carousel of 2 to 5 images of one size, and shows Pinterest\'s refusal of mixed sizes', async () => {
    await publish('A carousel', [png(4), png(4), png(4)]);
    expect(pinsWith('A carousel')[0]?.images.map((image) => image.width)).toEqual([4, 4, 4]);
    const error = await failure(publish('Mixed sizes', [png(4), png(6)]));
    expect(error).toMatchObject({
      kind: 'permanent', message: 'Invalid request: all images of a carousel must have the same dimensions.',
    });
    expect(pinsWith('Mixed sizes')).toHaveLength(0);
  });

  it('refuses, with Pinterest\'s words, an image whose bytes are not what it claims to be', async () => {
    const gif = file(Buffer.from('GIF89a\u0004\u0000\u0004\u0000', 'latin1'), 'image/png', 'fake.png');
    const error = await failure(publish('Not a PNG', [gif]));
    expect(error).toMatchObject({
      kind: 'permanent', httpStatus: 400, message: 'Invalid request: the image could not be read.',
    });
  });

  it('registers, uploads and waits for a video, then pins it with its cover; each step checkpointed', async () => {
    sim.media.processingReads = 2;
    const checkpoint = memoryCheckpoint();
    const result = await publish('A video pin', [video()], { cover_image_key_frame_time: 2 }, checkpoint);
    const [pin] = pinsWith('A video pin');
    expect(result.releaseId).toBe(pin?.id);
    const media = sim.media.items.get(pin?.video?.mediaId ?? '');
    expect(media).toMatchObject({ status: 'succeeded', fileName: 'clip.mp4' });
    expect(media?.bytes?.equals(sampleMp4(50_000))).toBe(true);
    expect(pin?.video?.cover).toEqual({ cover_image_key_frame_time: 2 });
    expect(checkpoint.saves.slice(0, 2)).toEqual([
      { videoMediaId: media?.id, videoUploaded: '' },
      { videoUploaded: '1' },
    ]);
    expect(checkpoint.saves[2]).toHaveProperty('pinAttemptAt');
    // The upload host got the form and its signature, never the user's token.
    expect(sim.requestsTo('POST upload').at(-1)?.headers.authorization).toBeUndefined();
  });

  it('takes the cover frame in whole seconds only, as Pinterest types it (integer, at least 0)', async () => {
    const before = sim.requestsTo('POST /v5/media').length;
    const fraction = await failure(publish('Fraction frame', [video()], { cover_image_key_frame_time: 1.5 }));
    expect(fraction).toMatchObject({
      kind: 'permanent',
      message: 'Pinterest settings: cover_image_key_frame_time: must be a whole number of seconds, such as 2 '
        + '(Pinterest takes no fractions of a second)',
    });
    expect(sim.requestsTo('POST /v5/media').length).toBe(before);
    // Pinterest itself refuses a fraction, in its {code, message} shape, and pins nothing: the
    // description's PinMediaSourceVideoID types the frame as an integer, so no media source fits.
    await publish('Whole frame', [video()], { cover_image_key_frame_time: 0 });
    const mediaId = pinsWith('Whole frame')[0]?.video?.mediaId;
    const answer = await fetch(`${sim.url}/v5/pins`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${readPinterestCredential(channel.accessToken).accessToken}`,
      },
      body: JSON.stringify({
        board_id: recipes, description: 'Fraction sent',
        media_source: { source_type: 'video_id', media_id: mediaId, cover_image_key_frame_time: 1.5 },
      }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      code: 1, message: expect.stringMatching(/^Invalid parameters: body\.media_source /) as string,
    });
    expect(pinsWith('Fraction sent')).toHaveLength(0);
  });

  it('polls the same video after the upload\'s answer was lost, without registering or uploading again', async () => {
    const checkpoint = memoryCheckpoint();
    const registrations = sim.requestsTo('POST /v5/media').length;
    sim.failNext('POST upload', 'lose');
    const cover = { cover_image_url: 'https://example.com/c.jpg' };
    const lost = await failure(publish('Upload answer lost', [video()], cover, checkpoint));
    expect(lost.kind).toBe('retryable');
    const uploads = sim.requestsTo('POST upload').length;
    await publish('Upload answer lost', [video()], cover, checkpoint);
    expect(sim.requestsTo('POST /v5/media').length).toBe(registrations + 1);
    expect(sim.requestsTo('POST upload').length).toBe(uploads);
    expect(pinsWith('Upload answer lost')[0]?.video?.mediaId).toBe(checkpoint.values.videoMediaId);
  });

  it('registers a new video when the checkpointed one never got its file', async () => {
    const checkpoint = memoryCheckpoint();
    sim.failNext('POST upload', sim.rateLimited(1));
    await failure(publish('Upload refused once', [video()], { cover_image_key_frame_time: 0 }, checkpoint));
    const first = checkpoint.values.videoMediaId;
    expect(sim.media.items.get(first ?? '')?.status).toBe('registered');
    await publish('Upload refused once', [video()], { cover_image_key_frame_time: 0 }, checkpoint);
    expect(checkpoint.values.videoMediaId).not.toBe(first);
    expect(pinsWith('Upload refused once')[0]?.video?.mediaId).toBe(checkpoint.values.videoMediaId);
  });

  it('fails a video Pinterest could not process, and asks to look again at one still processing', async () => {
    sim.media.outcome = 'failed';
    expect(await failure(publish('Broken video', [video()], { cover_image_key_frame_time: 0 }))).toMatchObject({
      kind: 'permanent', message: 'Pinterest could not process the video clip.mp4',
    });
    sim.media.outcome = 'succeeded';
    sim.media.processingReads = 1_000;
    const slow = await failure(publish('Slow video', [video()], { cover_image_key_frame_time: 0 }));
    expect(slow).toMatchObject({ kind: 'retryable', retryAfterMs: 30_000 });
    expect(pinsWith('Broken video')).toHaveLength(0);
  });

  it('pins once when the answer to the pin was lost: the retry finds it on the board', async () => {
    const checkpoint = memoryCheckpoint();
    sim.failNext('POST /v5/pins', 'lose');
    const settings = { title: 'Once', link: 'https://example.com/once' };
    expect((await failure(publish('Pinned once', [png(3)], settings, checkpoint))).kind).toBe('retryable');
    const result = await publish('Pinned once', [png(3)], settings, checkpoint);
    const made = pinsWith('Pinned once');
    expect(made).toHaveLength(1);
    expect(result.releaseId).toBe(made[0]?.id);
    expect(sim.requestsTo('POST /v5/pins').filter((request) => request.text.includes('Pinned once'))).toHaveLength(1);
    expect(sim.lostResponses).toBeGreaterThan(0);
  });

  it('pins again when the checkpoint is marked but the board holds no such pin', async () => {
    const checkpoint = memoryCheckpoint({ pinAttemptAt: new Date().toISOString() });
    await publish('Pinned once', [png(3)], { title: 'Other title' }, checkpoint);
    expect(pinsWith('Pinned once').map((pin) => pin.title)).toEqual(['Once', 'Other title']);
  });

  it('classifies Pinterest\'s refusals on its codes', async () => {
    const missingBoard = await failure(publish('No board', [png(3)], { board_id: '1' }));
    expect(missingBoard).toMatchObject({ kind: 'permanent', httpStatus: 404, message: 'Board not found.' });

    sim.failNext('POST /v5/pins', sim.rateLimited(7));
    expect(await failure(publish('Throttled', [png(3)]))).toMatchObject({ kind: 'retryable', retryAfterMs: 7_000 });
    sim.failNext('POST /v5/pins', { status: 400, body: { code: 30, message: 'Too many writes to this board.' } });
    expect(await failure(publish('Throttled', [png(3)]))).toMatchObject({ kind: 'retryable', retryAfterMs: 60_000 });
    sim.rateLimit.limit = 0;
    expect(await failure(publish('Throttled', [png(3)]))).toMatchObject({ kind: 'retryable', httpStatus: 429 });
    sim.rateLimit.limit = 1_000;

    sim.authority.now = () => Date.now() + 31 * 24 * 3600_000;
    try {
      const expired = await failure(publish('Expired', [png(3)]));
      expect(expired).toMatchObject({ kind: 'refresh_token', message: 'Authentication failed.' });
    } finally {
      sim.authority.now = Date.now;
    }
  });

  it('calls a token without the pin scopes disconnected: only connecting again grants them', async () => {
    const narrow: OAuthConnect = {
      ...pinterestConnect,
      provider: (app) => ({ ...pinterestConnect.provider(app), scopes: ['boards:read', 'user_accounts:read'] }),
    };
    const { authorized } = await authorizeAndConnect(narrow, context);
    const limited = { channelId: 'c2', accessToken: authorized.accounts[0]?.accessToken ?? '', instanceUrl: null };
    const error = await failure(adapter.publish({
      channel: limited, content: 'No scope', media: [png(3)], settings: {}, idempotencyKey: 'k',
      checkpoint: memoryCheckpoint(),
    }));
    expect(error).toMatchObject({ kind: 'disconnected', httpStatus: 403 });
    expect(error.message).toContain('boards:write');
  });

  it('lists boards and sections, and creates a board', async () => {
    expect(await adapter.tools.boards?.(channel, {})).toEqual([
      { id: recipes, name: 'Recipes', privacy: 'PUBLIC', description: '' },
      { id: workshop, name: 'Workshop', privacy: 'PROTECTED', description: '' },
    ]);
    expect(await adapter.tools.boardSections?.(channel, {})).toEqual([{ id: '770001', name: 'Soups' }]);
    expect(await adapter.tools.boardSections?.(channel, { board_id: workshop })).toEqual([]);
    const made = await adapter.tools.createBoard?.(channel, { name: 'Ideas', privacy: 'SECRET' });
    expect(made).toMatchObject({ name: 'Ideas', privacy: 'SECRET' });
    expect(user.boards.map((board) => board.name)).toContain('Ideas');
    const open = { name: 'X', privacy: 'OPEN' };
    const refused = await failure(Promise.resolve(adapter.tools.createBoard?.(channel, open)));
    expect(refused).toMatchObject({ kind: 'permanent', message: 'privacy must be PUBLIC, PROTECTED or SECRET' });
    const conflict = await failure(Promise.resolve(adapter.tools.createBoard?.(channel, { name: 'Ideas' })));
    expect(conflict.message).toBe('You already have a board with this name.');
  });

  it('reads the account\'s and a pin\'s counters', async () => {
    await publish('Counted pin', [png(3)]);
    const [pin] = pinsWith('Counted pin');
    if (pin === undefined) throw new Error('no pin');
    pin.metrics = { IMPRESSION: 90, SAVE: 4, PIN_CLICK: 7, OUTBOUND_CLICK: 2, VIDEO_START: 0 };
    expect(await adapter.analytics?.post(channel, pin.id)).toEqual([
      { label: 'Impressions', value: 90 },
      { label: 'Saves', value: 4 },
      { label: 'Pin clicks', value: 7 },
      { label: 'Outbound clicks', value: 2 },
    ]);
    expect(await adapter.analytics?.account(channel)).toEqual([
      { label: 'Followers', value: 321 },
      { label: 'Impressions, last 30 days', value: 1200 },
      { label: 'Saves, last 30 days', value: 40 },
      { label: 'Pin clicks, last 30 days', value: 75 },
      { label: 'Outbound clicks, last 30 days', value: 12 },
    ]);
    const window = sim.requestsTo('GET /v5/pins/:id/analytics').at(-1)?.query;
    expect(window?.get('metric_types')).toBe('IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK');
  });

  it('lists the board\'s latest pins, and refuses a comment', async () => {
    const recent = await adapter.recentContent(channel);
    const onBoard = sim.pins.items.filter((pin) => pin.boardId === recipes).reverse().slice(0, 25);
    expect(recent).toEqual(onBoard.map((pin) => ({ id: pin.id, url: `https://www.pinterest.com/pin/${pin.id}/` })));
    const error = await failure(adapter.comment({
      channel, content: 'a reply', media: [], settings: {}, idempotencyKey: 'k', checkpoint: memoryCheckpoint(),
      parentReleaseId: onBoard[0]?.id ?? '',
    }));
    expect(error.kind).toBe('permanent');
    expect(readPinterestCredential(channel.accessToken).boardId).toBe(recipes);
  });
});
