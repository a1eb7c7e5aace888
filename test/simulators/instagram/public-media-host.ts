import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { PublishMedia } from '../../../shared/platforms/kit/platform-adapter.ts';

/**
 * Where a platform that pulls media by URL finds SPS's files, for adapter tests that run without
 * the api serving UPLOADS_PUBLIC_URL: each file at its own path with its own Content-Type.
 */
export interface PublicMediaHost {
  url: string;
  /** Serves `bytes` and answers the PublishMedia an adapter receives for it. */
  add(name: string, bytes: Buffer, options: { kind: 'image' | 'video'; mimeType: string; alt?: string }): PublishMedia;
  close(): Promise<void>;
}

export async function startPublicMediaHost(): Promise<PublicMediaHost> {
  const files = new Map<string, { bytes: Buffer; mimeType: string }>();
  const server: Server = createServer((request, response) => {
    const file = files.get(new URL(request.url ?? '/', 'http://media').pathname);
    if (file === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.bytes.length) });
    response.end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  return {
    url,
    add: (name, bytes, { kind, mimeType, alt }) => {
      files.set(`/uploads/${name}`, { bytes, mimeType });
      return {
        kind,
        mimeType,
        size: bytes.length,
        fileName: name,
        alt: alt ?? null,
        url: `${url}/uploads/${name}`,
        open: () => Promise.resolve(Readable.from([bytes])),
      };
    },
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => { if (error === undefined) resolve(); else reject(error); });
    }),
  };
}

/** The start and end of a JPEG (SOI, a JFIF APP0, EOI): enough for a server that reads the signature. */
export function sampleJpeg(totalBytes = 2_000): Buffer {
  const head = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
  const bytes = Buffer.alloc(totalBytes);
  head.copy(bytes);
  bytes.set([0xff, 0xd9], totalBytes - 2);
  return bytes;
}
