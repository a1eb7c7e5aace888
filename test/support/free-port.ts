import { createServer } from 'node:net';

/** A port nothing listens on right now (the OS hands one out and takes it back). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => { resolve(port); });
    });
  });
}

/** An address on loopback where nothing answers: a platform that cannot be reached. */
export async function closedOrigin(scheme: 'http' | 'ws' = 'http'): Promise<string> {
  return `${scheme}://127.0.0.1:${String(await freePort())}`;
}
