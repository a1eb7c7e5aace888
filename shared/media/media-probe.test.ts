import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/stack.ts';
import { makeTestMedia } from '../../test/support/test-media.ts';
import { posterFrame, probeMedia } from './media-probe.ts';
import { MediaToolFailure, MediaToolMissing, MediaToolTimeout } from './media-tool.ts';

const media = makeTestMedia();

/** Processes whose command line names `input`: the tools SPS started on it and has not reaped. */
function processesReading(input: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch (error) {
      // A process that exited while the list was read.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ESRCH') continue;
      throw error;
    }
    if (commandLine.split('\0').includes(input)) found.push(`${pid}: ${commandLine.replaceAll('\0', ' ')}`);
  }
  return found;
}

describe('probeMedia and posterFrame run ffprobe and ffmpeg with a hard time limit', () => {
  let dir: string;
  let server: Server;
  let origin = '';
  const stalled: ServerResponse[] = [];
  let posterRequests = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sps-probe-'));
    const clip = readFileSync(media.mp4);
    server = createServer((request, response) => {
      // Never answers: a source that accepts the connection and then sends nothing.
      if (request.url === '/silent.mp4') {
        stalled.push(response);
        return;
      }
      // The whole clip to the first reader (ffprobe), then headers and a few bytes and nothing more.
      if (request.url === '/stalls-later.mp4') {
        posterRequests += 1;
        if (posterRequests === 1) {
          response.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': clip.length }).end(clip);
          return;
        }
        response.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': clip.length });
        response.write(clip.subarray(0, 1024));
        stalled.push(response);
        return;
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    for (const response of stalled) response.destroy();
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(media.dir, { recursive: true, force: true });
  });

  it('reads a video\'s streams within the limit', async () => {
    expect(await probeMedia(media.mp4, { timeoutMs: 20_000 })).toMatchObject({
      width: 320, height: 240, videoCodec: 'h264', videoProfile: 'Main', audioCodec: 'aac', frameRate: 30,
    });
  });

  it('kills ffprobe waiting on a FIFO nobody writes to, and says it timed out', async () => {
    const fifo = path.join(dir, 'never-written.mp4');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    const error: unknown = await probeMedia(fifo, { timeoutMs: 1000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaToolTimeout);
    expect(error).toMatchObject({
      tool: 'ffprobe', timeoutMs: 1000, message: 'ffprobe did not finish within 1000 ms and was stopped',
    });
    // Not before the limit; well before a hang (a busy machine gets a wide margin).
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The error comes once the process has exited: nothing is left reading the FIFO.
    expect(processesReading(fifo)).toEqual([]);
  });

  it('kills ffmpeg blocked opening a FIFO, which ignores SIGTERM there', async () => {
    const fifo = path.join(dir, 'never-written-either.mp4');
    execFileSync('mkfifo', [fifo]);
    const error: unknown = await buffer(posterFrame(fifo, 0, 1000)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaToolTimeout);
    expect(error).toMatchObject({ tool: 'ffmpeg', timeoutMs: 1000 });
    expect(processesReading(fifo)).toEqual([]);
  });

  it('kills ffprobe reading from a server that never answers', async () => {
    const url = `${origin}/silent.mp4`;
    await expect(probeMedia(url, { timeoutMs: 1000 })).rejects.toBeInstanceOf(MediaToolTimeout);
    expect(processesReading(url)).toEqual([]);
  });

  it('kills ffmpeg making a poster frame from a source that stalls, and fails the frame\'s stream', async () => {
    const url = `${origin}/stalls-later.mp4`;
    const probe = await probeMedia(url, { timeoutMs: 20_000 });
    expect(probe.durationSeconds).toBeGreaterThan(1.9);
    const error: unknown = await buffer(posterFrame(url, 1, 1000)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaToolTimeout);
    expect(error).toMatchObject({ tool: 'ffmpeg', timeoutMs: 1000 });
    await waitFor(() => (processesReading(url).length === 0 ? true : undefined), { what: 'ffmpeg to be gone' });
  });

  it('makes a JPEG poster frame, and fails with the tool\'s own words on an input it cannot read', async () => {
    const jpeg = await buffer(posterFrame(media.mp4, 1, 20_000));
    expect(jpeg.subarray(0, 3).toString('hex')).toBe('ffd8ff');
    const error: unknown = await buffer(posterFrame(media.truncatedMp4, 1, 20_000)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaToolFailure);
    expect((error as Error).message).toMatch(/^ffmpeg failed: .*moov atom not found/s);
    const probing = probeMedia(media.truncatedMp4, { timeoutMs: 20_000 });
    await expect(probing).rejects.toThrow(/^ffprobe failed: .*moov atom not found/s);
  });

  it('fails a poster frame with MediaToolMissing when ffmpeg is gone after a frame was made', async () => {
    // The frame first: fluent-ffmpeg then skips its capability check, and used to throw out of its
    // exit handler on the missing command, an uncaught TypeError instead of the stream's error.
    await buffer(posterFrame(media.mp4, 1, 20_000));
    const missing = { ffprobe: 'ffprobe', ffmpeg: path.join(tmpdir(), 'sps-no-such-ffmpeg') };
    const error: unknown = await buffer(posterFrame(media.mp4, 1, 20_000, missing)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MediaToolMissing);
    expect((error as Error).message).toContain('ffmpeg is not installed on this server');
  });
});
