import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from './cli-error.ts';
import { uploadFile } from './multipart-upload.ts';
import { removeTemporaryFolders, temporaryFolder } from './test/run-cli.ts';

const refusal = {
  statusCode: 413, error: 'payload_too_large', message: 'the image is larger than the 1 MB allowed for images',
};
const answer = Buffer.from(JSON.stringify(refusal));

/**
 * A server that refuses an upload early the way Node's HTTP server does with `Connection: close`:
 * once it has read part of the body it answers 413, ends its side, and closes without reading
 * the rest. Closing with unread bytes makes the kernel reset the connection, so the client's next
 * write fails (EPIPE, ECONNRESET) while the answer sits unread in its socket.
 */
function refusingServer(): Server {
  return createServer((socket) => {
    let received = 0;
    let answered = false;
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') throw error;
    });
    socket.on('data', (data: Buffer) => {
      received += data.length;
      if (answered || received < 256 * 1024) return;
      answered = true;
      socket.pause();
      socket.end(`HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\n`
        + `Content-Length: ${answer.length}\r\nConnection: close\r\n\r\n${answer.toString()}`);
      socket.once('finish', () => { socket.destroy(); });
    });
  });
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
}

describe('uploadFile against a server that answers 413 and closes while the file is being sent', () => {
  let file: string;
  const server = refusingServer();
  let apiUrl: string;

  beforeAll(async () => {
    file = path.join(temporaryFolder('sps-cli-upload-'), 'too-big.png');
    writeFileSync(file, Buffer.alloc(8 * 1024 * 1024, 1));
    apiUrl = await listening(server);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    removeTemporaryFolders();
  });

  it('reports the 413, not "could not reach", every time (30 runs)', async () => {
    const outcomes: unknown[] = [];
    for (let run = 0; run < 30; run += 1) {
      let sent = 0;
      const outcome = await uploadFile({ kind: 'api-key', token: 'sps_test', apiUrl, organizationId: null }, file, {
        onSent: (bytes) => { sent = bytes; },
      }).then(() => 'answered 2xx', (error: unknown) => error);
      outcomes.push(outcome instanceof ApiError
        ? { status: outcome.status, code: outcome.code, message: outcome.message }
        : String(outcome));
      // It stopped sending at the answer, long before the end of the file.
      expect(sent).toBeLessThan(8 * 1024 * 1024);
    }
    const expected = { status: 413, code: 'payload_too_large', message: refusal.message };
    expect(outcomes).toEqual(Array.from({ length: 30 }, () => expected));
  });
});
