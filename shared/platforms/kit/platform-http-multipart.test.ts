import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartParts } from '../../../test/simulators/x/x-multipart.ts';
import {
  startSimulatorServer, type RunningSimulator,
} from '../../../test/simulators/kit/simulator-server.ts';
import type { PublishMedia } from './platform-adapter.ts';
import { platformRequest } from './platform-http.ts';

/** A file of the library, with a count of how often it was opened and whether its stream was closed. */
function file(fileName: string, bytes: Buffer): PublishMedia & { opens: number; streams: Readable[] } {
  const streams: Readable[] = [];
  return {
    kind: 'image', mimeType: 'image/png', size: bytes.length, fileName, alt: null, url: 'https://files.example/x',
    opens: 0,
    streams,
    open() {
      this.opens += 1;
      const stream = Readable.from([bytes.subarray(0, 2), bytes.subarray(2)]);
      streams.push(stream);
      return Promise.resolve(stream);
    },
  };
}

/** Several files in one multipart body (Discord's `files[n]`), each streamed in turn. */
describe('platformRequest multipart with several files', () => {
  let server: RunningSimulator;

  beforeAll(async () => {
    server = await startSimulatorServer(() => ({ status: 200, body: { ok: true } }), { status: 404 });
  });

  afterAll(async () => {
    await server.close();
  });

  it('sends the fields, then each file under its own field, and a matching Content-Length', async () => {
    const one = file('one.png', Buffer.from([1, 2, 3, 4]));
    const two = file('twó.png', Buffer.from([0, 255, 13, 10, 0]));
    const three = file('three.png', Buffer.from('ab'));
    await platformRequest({
      provider: 'test', method: 'POST', url: `${server.url}/files`, timeoutMs: 5_000,
      multipart: {
        fields: { payload_json: '{"content":"hi"}' },
        fileField: 'files[0]',
        file: one,
        moreFiles: [{ field: 'files[1]', file: two }, { field: 'files[2]', file: three }],
      },
    });

    const [request] = server.received;
    expect(request?.headers['content-length']).toBe(String(request?.raw.length));
    const parts = request === undefined ? null : multipartParts(request);
    expect(parts?.map((part) => [part.name, part.fileName, part.data.toString('hex')])).toEqual([
      ['payload_json', null, Buffer.from('{"content":"hi"}').toString('hex')],
      ['files[0]', 'one.png', '01020304'],
      ['files[1]', 'twó.png', '00ff0d0a00'],
      ['files[2]', 'three.png', '6162'],
    ]);
    expect([one.opens, two.opens, three.opens]).toEqual([1, 1, 1]);
    expect([...one.streams, ...two.streams, ...three.streams].every((stream) => stream.destroyed)).toBe(true);
  });
});
