import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MastodonSimulator } from './mastodon-simulator.ts';
import { sampleMp4, samplePng } from '../../support/sample-media.ts';

/**
 * The simulator stands in for Mastodon in every publishing test, so it must refuse what
 * Mastodon refuses; otherwise a test passes where a real instance would fail the post.
 */
describe('Mastodon simulator', () => {
  const simulator = new MastodonSimulator({ rateLimits: { media: { limit: 12, periodMs: 3_600_000 } } });
  let token: string;

  beforeAll(async () => {
    await simulator.start();
    token = simulator.addAccount('fidelity');
  });
  afterAll(async () => { await simulator.stop(); });

  interface CallInit {
    method?: string;
    body?: unknown;
    form?: FormData;
    token?: string;
    headers?: Record<string, string>;
  }

  async function call(path: string, init: CallInit = {}) {
    const headers: Record<string, string> = { Authorization: `Bearer ${init.token ?? token}`, ...init.headers };
    let body: string | FormData | undefined = init.form;
    if (init.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    const response = await fetch(`${simulator.origin}${path}`, { method: init.method ?? 'GET', headers, body });
    const answer = await response.json() as Record<string, unknown>;
    return { status: response.status, body: answer, headers: response.headers };
  }
  const post = (status: Record<string, unknown>, options: { token?: string; key?: string } = {}) => {
    const { token: asToken, key } = options;
    return call('/api/v1/statuses', {
      method: 'POST',
      body: status,
      ...(asToken === undefined ? {} : { token: asToken }),
      ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }),
    });
  };
  const refusal = (status: number, error: string) => ({ status, body: { error } });
  async function upload(bytes: Buffer, type: string, options: { token?: string } = {}) {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), 'upload.bin');
    return call('/api/v2/media', { method: 'POST', form, ...options });
  }
  async function mediaId(bytes: Buffer, type: string): Promise<string> {
    const answer = await upload(bytes, type);
    expect([200, 202]).toContain(answer.status);
    const id = String(answer.body.id);
    // Videos are ready after one poll.
    while ((await call(`/api/v1/media/${id}`)).status === 206);
    return id;
  }
  const tooLong = { status: 422, body: { error: 'Validation failed: Text character limit of 500 exceeded' } };

  describe('status length, as StatusLengthValidator counts it', () => {
    it('counts grapheme clusters, not code points', async () => {
      const family = '👨‍👩‍👧';
      expect(await post({ status: family.repeat(500) })).toMatchObject({ status: 200 });
      expect(await post({ status: family.repeat(501) })).toMatchObject(tooLong);
    });

    it('counts the content warning and the text together', async () => {
      const warning = 'w'.repeat(300);
      expect(await post({ status: 'a'.repeat(200), spoiler_text: warning }))
        .toMatchObject({ status: 200, body: { spoiler_text: warning } });
      expect(await post({ status: 'a'.repeat(201), spoiler_text: 'w'.repeat(300) })).toMatchObject(tooLong);
    });

    it('counts every URL as 23 characters, however long', async () => {
      const url = `https://example.com/${'x'.repeat(300)}`;
      expect(await post({ status: `${'a'.repeat(476)} ${url}` })).toMatchObject({ status: 200 });
      expect(await post({ status: `${'a'.repeat(477)} ${url}` })).toMatchObject(tooLong);
      // Without a scheme it is plain text, counted in full.
      expect(await post({ status: `${'a'.repeat(476)} example.com/${'x'.repeat(30)}` })).toMatchObject(tooLong);
    });

    it('counts a remote mention by its user name only', async () => {
      const mention = `@alice@${'long'.repeat(20)}.example`;
      expect(await post({ status: `${mention} ${'a'.repeat(493)}` })).toMatchObject({ status: 200 });
      expect(await post({ status: `${mention} ${'a'.repeat(494)}` })).toMatchObject(tooLong);
    });
  });

  describe('media', () => {
    it('refuses a video together with images, two videos, and more than 4 files', async () => {
      const image = await mediaId(samplePng(), 'image/png');
      const video = await mediaId(sampleMp4(), 'video/mp4');
      const otherVideo = await mediaId(sampleMp4(), 'video/mp4');
      const mixed = { status: 422, body: { error: 'Cannot attach a video to a post that already contains images' } };
      expect(await post({ status: 'mixed', media_ids: [image, video] })).toMatchObject(mixed);
      expect(await post({ status: 'two videos', media_ids: [video, otherVideo] })).toMatchObject(mixed);
      const five = await Promise.all(Array.from({ length: 5 }, () => mediaId(samplePng(), 'image/png')));
      expect(await post({ status: 'five', media_ids: five }))
        .toMatchObject(refusal(422, 'Cannot attach more than 4 files'));
      expect(await post({ status: 'one video', media_ids: [video] })).toMatchObject({ status: 200 });
      expect(simulator.statuses.map((status) => status.text)).not.toContain('mixed');
    });

    it('judges an upload by its bytes, refuses what is not an image or video, and holds the size limits', async () => {
      expect(await upload(Buffer.from('plain text pretending'), 'image/png'))
        .toMatchObject(refusal(422, 'Validation failed: File content type is invalid, File is invalid'));
      const disguised = await upload(sampleMp4(), 'image/png');
      expect(disguised).toMatchObject({ status: 202, body: { type: 'video', url: null } });
      const limit = 16 * 1024 * 1024;
      expect(await upload(samplePng(limit + 1), 'image/png'))
        .toMatchObject(refusal(422, 'Validation failed: File file size must be less than 16 MB'));
      expect(await upload(samplePng(limit), 'image/png')).toMatchObject({ status: 200, body: { type: 'image' } });
    });
  });

  describe('scopes', () => {
    it('needs write:statuses (or write) to post and write:media (or write) to upload', async () => {
      const outside = { status: 403, body: { error: 'This action is outside the authorized scopes' } };
      const reader = simulator.addAccount('reader', { scopes: ['read'] });
      const texter = simulator.addAccount('texter', { scopes: ['write:statuses'] });
      const writer = simulator.addAccount('writer', { scopes: ['write'] });
      expect(await post({ status: 'reader' }, { token: reader })).toMatchObject(outside);
      expect(await upload(samplePng(), 'image/png', { token: reader })).toMatchObject(outside);
      expect(await post({ status: 'texter' }, { token: texter })).toMatchObject({ status: 200 });
      expect(await upload(samplePng(), 'image/png', { token: texter })).toMatchObject(outside);
      expect(await call('/api/v1/accounts/verify_credentials', { token: texter })).toMatchObject(outside);
      expect(await upload(samplePng(), 'image/png', { token: writer })).toMatchObject({ status: 200 });
      expect(simulator.statuses.map((status) => status.text)).not.toContain('reader');
    });
  });

  describe('rate limits', () => {
    it('sends X-RateLimit-* always, and a 429 with X-RateLimit-Reset (ISO 8601), not Retry-After', async () => {
      const limited = await new MastodonSimulator({ rateLimits: { api: { limit: 2, periodMs: 300_000 } } }).start();
      try {
        const busy = limited.addAccount('busy');
        const headers = { Authorization: `Bearer ${busy}` };
        const ask = () => fetch(`${limited.origin}/api/v1/accounts/verify_credentials`, { headers });
        const first = await ask();
        const limitHeaders = [first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')];
        expect([first.status, ...limitHeaders]).toEqual([200, '2', '1']);
        await ask();
        const before = Date.now();
        const refused = await ask();
        expect(refused.status).toBe(429);
        expect(await refused.json()).toEqual({ error: 'Too many requests' });
        expect(refused.headers.get('retry-after')).toBeNull();
        expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
        const reset = refused.headers.get('x-ratelimit-reset') ?? '';
        expect(reset).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(Date.parse(reset)).toBe((Math.floor(before / 300_000) + 1) * 300_000);
      } finally {
        await limited.stop();
      }
    });
  });

  describe('idempotency and lost answers', () => {
    it('creates the status and cuts the connection to lose the answer; the same key gets that status', async () => {
      simulator.failNext({ loseResponse: true });
      const lost = await post({ status: 'lost answer' }, { key: 'lost-1' }).then(() => null, (error: unknown) => error);
      expect(lost).toBeInstanceOf(Error);
      expect(simulator.lostResponses).toBe(1);
      const created = simulator.statuses.filter((status) => status.text === 'lost answer');
      expect(created).toHaveLength(1);
      const again = await post({ status: 'lost answer' }, { key: 'lost-1' });
      expect(again).toMatchObject({ status: 200, body: { id: created[0]?.id } });
      expect(simulator.statuses.filter((status) => status.text === 'lost answer')).toHaveLength(1);
      expect(simulator.idempotencyKeysFor('lost answer')).toEqual(['lost-1', 'lost-1']);
    });
  });
});
