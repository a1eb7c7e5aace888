import type { IncomingMessage, ServerResponse } from 'node:http';
import { LogEvent } from '../../../shared/logging/events.ts';
import type { Logger } from '../../../shared/logging/logger.ts';

export interface DrainLimits {
  maxBytes: number;
  maxMs: number;
}

/**
 * How much of a refused upload is still read after the answer. Enough for a client that reads
 * the answer while it sends (it stops within what is in flight: socket buffers, a few MB) on a
 * slow or busy machine; a client that sends everything before reading may be cut off sooner.
 */
export const refusedUploadDrain: DrainLimits = { maxBytes: 32 * 1024 * 1024, maxMs: 15_000 };

/**
 * Reads and drops the rest of a refused upload's body, within `limits`, before the connection
 * closes. Closing a socket with unread bytes makes the kernel reset the connection, and a
 * client still sending then fails its write and may never read the 413 or 415 it was sent. A
 * body that ends within the limits leaves the connection usable for the next request.
 */
export function drainRefusedUpload(
  request: IncomingMessage,
  response: ServerResponse,
  log: Logger,
  limits = refusedUploadDrain,
): void {
  if (request.complete || request.destroyed) return;
  request.unpipe();
  let drained = 0;
  const started = Date.now();
  const report = (limit: 'bytes' | 'time' | null): Record<string, unknown> => (
    { event: LogEvent.uploadDrained, drainedBytes: drained, ms: Date.now() - started, limit }
  );
  const onData = (chunk: Buffer): void => {
    drained += chunk.length;
    if (drained > limits.maxBytes) stop('bytes');
  };
  const timer = setTimeout(() => { stop('time'); }, limits.maxMs);
  timer.unref();
  function settle(): void {
    clearTimeout(timer);
    request.off('data', onData);
  }
  function stop(limit: 'bytes' | 'time'): void {
    settle();
    request.pause();
    log.info(report(limit), 'stopped reading a refused upload');
    // The answer goes out first: it is what the client was given the time to read.
    const close = (): void => { request.socket.destroy(); };
    if (response.writableFinished || response.destroyed) close();
    else {
      response.once('finish', close);
      response.once('close', close);
    }
  }
  request.once('end', () => {
    settle();
    log.info(report(null), 'read the rest of a refused upload');
  });
  request.once('close', settle);
  request.on('data', onData);
  request.resume();
}
