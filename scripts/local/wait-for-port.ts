import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export function portIsOpen(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (open: boolean): void => { socket.destroy(); resolve(open); };
    socket.setTimeout(timeoutMs, () => { done(false); });
    socket.once('connect', () => { done(true); });
    socket.once('error', () => { done(false); });
  });
}

/** Polls until the port accepts connections; `isAlive` lets a dead child process end the wait early. */
export async function waitForPort(host: string, port: number, options: { timeoutMs: number; isAlive?: () => boolean; what: string }): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (Date.now() < deadline) {
    if (await portIsOpen(host, port)) return;
    if (options.isAlive !== undefined && !options.isAlive()) throw new Error(`${options.what} exited before listening on ${host}:${port}`);
    await sleep(100);
  }
  throw new Error(`${options.what} did not listen on ${host}:${port} within ${options.timeoutMs} ms`);
}
