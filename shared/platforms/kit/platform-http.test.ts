import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startSimulatorServer, type RunningSimulator, type SimulatedAnswer,
} from '../../../test/simulators/kit/simulator-server.ts';
import { multipartParts } from '../../../test/simulators/kit/multipart-form.ts';
import type { PublishMedia } from './platform-adapter.ts';
import { PlatformError } from './platform-error.ts';
import { platformRequest } from './platform-http.ts';

/** Raw byte bodies, answer headers and non-2xx answers, as resumable uploads need them. */
describe('platformRequest for uploads', () => {
  let server: RunningSimulator;

  beforeAll(async () => {
    server = await startSimulatorServer((request): SimulatedAnswer => {
      if (request.path === '/session') {
        return { status: 200, body: {}, headers: { location: `${server.url}/upload/abc` } };
      }
      if (request.path === '/form') return { status: 200, body: {} };
      if (request.path === '/upload/abc') {
        return { status: 308, headers: { range: `bytes=0-${String(request.raw.length - 1)}` } };
      }
      return { status: 400, body: { error: 'bad' } };
    }, { status: 404 });
  });

  afterAll(async () => {
    await server.close();
  });

  const base = { provider: 'test', timeoutMs: 5_000 } as const;

  it('sends every byte of a buffer and of a stream unchanged, with their type and length', async () => {
    const bytes = Buffer.from([0, 255, 128, 10, 13, 0xe9]);
    await platformRequest({ ...base, method: 'PUT', url: `${server.url}/upload/abc`, answerStatuses: [308],
      bytes: { data: bytes, contentType: 'video/mp4' } });
    await platformRequest({ ...base, method: 'PUT', url: `${server.url}/upload/abc`, answerStatuses: [308],
      bytes: { data: Readable.from([bytes.subarray(0, 3), bytes.subarray(3)]), contentType: 'video/mp4', length: 6 },
    });
    const [fromBuffer, fromStream] = server.received.filter((request) => request.path === '/upload/abc');
    expect(fromBuffer?.raw.equals(bytes)).toBe(true);
    expect(fromStream?.raw.equals(bytes)).toBe(true);
    expect(fromStream?.headers['content-type']).toBe('video/mp4');
    expect(fromStream?.headers['content-length']).toBe('6');
  });

  it('hands back the status and the headers asked for, and treats listed statuses as answers', async () => {
    const session = await platformRequest({ ...base, method: 'POST', url: `${server.url}/session`, json: {},
      withStatus: true, readHeaders: ['location', 'x-absent'] });
    const headers = { location: `${server.url}/upload/abc`, 'x-absent': null };
    expect(session).toEqual({ status: 200, body: {}, headers });
    const resume = await platformRequest({ ...base, method: 'PUT', url: `${server.url}/upload/abc`,
      bytes: { data: Buffer.from('abcd'), contentType: 'video/mp4' }, withStatus: true, readHeaders: ['range'],
      answerStatuses: [308] });
    expect(resume).toEqual({ status: 308, body: null, headers: { range: 'bytes=0-3' } });
  });

  it('streams several files in one multipart body, each its own part in order, with the exact length', async () => {
    const opened: string[] = [];
    const file = (bytes: Buffer, fileName: string, mimeType: string): PublishMedia => ({
      kind: 'image', mimeType, size: bytes.length, fileName, alt: null, url: '',
      open: () => {
        opened.push(fileName);
        return Promise.resolve(Readable.from([bytes]));
      },
    });
    const first = Buffer.from([0, 13, 10, 255]);
    const second = Buffer.from('second file');
    await platformRequest({ ...base, method: 'POST', url: `${server.url}/form`, multipart: {
      fields: { media: '[1]' },
      fileField: 'file0',
      file: file(first, 'a.png', 'image/png'),
      moreFiles: [{ field: 'file1', file: file(second, 'b.mp4', 'video/mp4') }],
    } });
    const request = server.received.filter((received) => received.path === '/form').at(-1);
    const parts = request === undefined ? null : multipartParts(request);
    expect(parts?.map((part) => [part.name, part.fileName, part.contentType, part.data.toString('hex')])).toEqual([
      ['media', null, null, Buffer.from('[1]').toString('hex')],
      ['file0', 'a.png', 'image/png', first.toString('hex')],
      ['file1', 'b.mp4', 'video/mp4', second.toString('hex')],
    ]);
    expect(request?.headers['content-length']).toBe(String(request?.raw.length));
    expect(opened).toEqual(['a.png', 'b.mp4']);
  });

  it('refuses a header value HTTP cannot carry as the caller\'s mistake, without calling or repeating it', async () => {
    const before = server.received.length;
    for (const token of ['key\u{1F469}', 'key\r\nX-Injected: 1', 'a\u0301']) {
      const refused = platformRequest({
        ...base, method: 'GET', url: `${server.url}/form`, headers: { Authorization: `Bearer ${token}` },
      });
      await expect(refused).rejects.toMatchObject({
        kind: 'permanent', message: expect.stringContaining('the Authorization header') as string,
      });
      await expect(refused).rejects.not.toMatchObject({ message: expect.stringContaining(token) as string });
    }
    expect(server.received.length).toBe(before);
  });

  it('still refuses a non-2xx status that is not listed', async () => {
    const refused = platformRequest({ ...base, method: 'PUT', url: `${server.url}/upload/abc`,
      bytes: { data: Buffer.from('x'), contentType: 'video/mp4' } });
    await expect(refused).rejects.toBeInstanceOf(PlatformError);
  });
});
