import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real relay that can lose the relay's answer to an EVENT: armed, it
 * cuts the client's connection at the relay's next OK instead of passing it on. The relay has
 * stored the event by then (relays answer OK after storing), so this is the crash exactly once is
 * about, played against a relay we did not write. Relay frames are unmasked (RFC 6455), so the
 * OK is visible in the bytes as they pass.
 */
export interface AnswerDroppingProxy {
  /** ws://127.0.0.1:<port>, to give a channel instead of the relay's own address. */
  url: string;
  /** Loses the next OK the relay sends, whichever connection it is on. */
  dropNextOk(): void;
  /** How many OKs were lost so far. */
  dropped(): number;
  close(): Promise<void>;
}

const okStart = Buffer.from('["OK",');

export async function startAnswerDroppingProxy(relayUrl: string): Promise<AnswerDroppingProxy> {
  const target = new URL(relayUrl);
  let armed = 0;
  let dropped = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => { sockets.delete(socket); });
    }
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', cut);
    upstream.on('error', cut);
    client.on('close', cut);
    upstream.on('close', cut);
    client.pipe(upstream);
    // The last bytes of the previous chunk, in case an OK straddles two reads.
    let tail = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      const seen = Buffer.concat([tail, chunk]);
      tail = seen.subarray(Math.max(0, seen.length - okStart.length));
      if (armed > 0 && seen.includes(okStart)) {
        armed -= 1;
        dropped += 1;
        cut();
        return;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${String(port)}`,
    dropNextOk: () => { armed += 1; },
    dropped: () => dropped,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => { resolve(); });
    }),
  };
}
