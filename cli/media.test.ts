import { copyFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MastodonSimulator } from '../test/simulators/mastodon/mastodon-simulator.ts';
import { organizationWithMastodon } from '../test/support/fixtures.ts';
import { startStack, type RunningStack } from '../test/support/stack.ts';
import { makeTestMedia, padMp4 } from '../test/support/test-media.ts';
import { createTestContext, type TestContext } from '../test/support/test-context.ts';
import { removeTemporaryFolders, runCli, stdoutJson, temporaryHome, type CliRun } from './test/run-cli.ts';

interface Media {
  id: string;
  path: string;
  originalName: string | null;
  mimeType: string;
  size: number;
  status: string;
  videoCodec?: string;
}

const media = makeTestMedia();
const mediaWaitMs = 8_000;


describe('sps upload, upload:url, media:get and video:generate against the api', () => {
  let ctx: TestContext;
  let stack: RunningStack;
  const simulator = new MastodonSimulator();
  let org: { apiKey: string; channelId: string };
  const home = temporaryHome();
  let source: Server;
  let sourceOrigin = '';
  const heldResponses: ServerResponse[] = [];

  beforeAll(async () => {
    source = createServer((request, response) => {
      if (request.url === '/photo.png') {
        response.writeHead(200, { 'Content-Type': 'image/png' }).end(readFileSync(media.png));
        return;
      }
      if (request.url === '/slow.png') {
        response.writeHead(200, { 'Content-Type': 'image/png' });
        response.write(readFileSync(media.png).subarray(0, 10));
        heldResponses.push(response);
        return;
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve));
    sourceOrigin = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
    await simulator.start();
    ctx = await createTestContext({ MEDIA_WAIT_MS: String(mediaWaitMs), MEDIA_MAX_IMAGE_BYTES: String(1024 * 1024) });
    stack = await startStack(ctx);
    org = await organizationWithMastodon(ctx, simulator.origin, simulator.addAccount('media'));
  });
  afterAll(async () => {
    for (const response of heldResponses) response.end(readFileSync(media.png).subarray(10));
    source.closeAllConnections();
    source.close();
    await stack.close();
    await ctx.cleanup();
    await simulator.stop();
    rmSync(media.dir, { recursive: true, force: true });
    removeTemporaryFolders();
  });

  const sps = (...args: string[]): Promise<CliRun> => runCli(args, {
    home, env: { SERVICE_API_KEY: org.apiKey, SERVICE_API_URL: `${stack.baseUrl}/api` },
  });

  it('upload sends a PNG as multipart field "file" (keeping a non-ASCII name), without a progress bar; the media goes into a post with --media', async () => {
    const named = path.join(media.dir, 'café photo.png');
    copyFileSync(media.png, named);
    const run = await sps('upload', named);
    const uploaded = (stdoutJson(run) as Media);
    expect(uploaded).toMatchObject({ mimeType: 'image/png', status: 'ready', originalName: 'café photo.png', size: statSync(media.png).size });
    expect(run.stderr).not.toContain('Uploading');
    expect((stdoutJson(await sps('media:get', uploaded.id)) as Media)).toMatchObject({ id: uploaded.id, status: 'ready', path: uploaded.path });

    const created = (stdoutJson(await sps('posts:create', '--channel', org.channelId, '--type', 'draft', '--content', 'With a picture', '--content', 'A reply', '--media', `${uploaded.id}:${uploaded.path}`)) as { postId: string }[]);
    const post = (stdoutJson(await sps('posts:get', created[0]?.postId ?? '')) as { value: { image: { id: string; path: string }[] }[] });
    expect(post.value.map((part) => part.image.map((image) => image.id))).toEqual([[uploaded.id], []]);
  });

  it('upload streams a 6 MB video with a progress bar on stderr computed from the bytes sent', async () => {
    const file = padMp4(media.mp4, path.join(media.dir, 'six-megabytes.mp4'), 6 * 1024 * 1024);
    const run = await sps('upload', file);
    expect((stdoutJson(run) as Media)).toMatchObject({ mimeType: 'video/mp4', videoCodec: 'h264', size: 6 * 1024 * 1024, status: 'ready' });
    const progress = run.stderr.split('\n').filter((line) => line.startsWith('Uploading ['));
    expect(progress.length).toBeGreaterThanOrEqual(5);
    expect(progress.at(-1)).toMatch(/\] 100% 6\.0 MB \/ 6\.0 MB$/);
    const percents = progress.map((line) => Number(/(?<!\d)(\d+)%/.exec(line)?.[1]));
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
  });

  it('upload of an image over the server\'s limit shows progress and the server\'s 413, every time', async () => {
    // Far more than the socket buffers hold, so the refusal comes while the client is still sending.
    const file = path.join(media.dir, 'too-big.png');
    writeFileSync(file, Buffer.concat([readFileSync(media.png), Buffer.alloc(24 * 1024 * 1024)]));
    for (let run = 0; run < 3; run += 1) {
      const refused = await sps('upload', file);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toMatch(/^Uploading \[/m);
      expect(refused.stderr).not.toContain('could not reach');
      const refusal = 'Error: the image is larger than the 1 MB allowed for images (payload_too_large, HTTP 413)';
      expect(refused.stderr).toContain(`\n${refusal}\n`);
    }
  });

  it('upload reports the server\'s refusal of a PDF, and a file that does not exist', async () => {
    const pdf = await sps('upload', media.pdf);
    expect(pdf.code).toBe(1);
    expect(pdf.stderr).toMatch(/^Error: .*PDF.*\(unsupported_file_type, HTTP 415\)$/m);
    const missing = await sps('upload', path.join(media.dir, 'nothing-here.png'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error: cannot read .*nothing-here\.png: ENOENT/m);
  });

  it('upload:url imports a file; a failed fetch shows the server\'s reason; a slow one answers pending with a hint', async () => {
    const imported = (stdoutJson(await sps('upload:url', `${sourceOrigin}/photo.png`)) as Media);
    expect(imported).toMatchObject({ mimeType: 'image/png', status: 'ready', originalName: 'photo.png' });

    const failed = await sps('upload:url', `${sourceOrigin}/gone.png`);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/\(fetch_failed, HTTP 422\)/);
    expect(failed.stderr).toMatch(/^ {2}- reason: fetch_failed/m);

    const slow = await sps('upload:url', `${sourceOrigin}/slow.png`);
    const pending = (stdoutJson(slow) as { id: string; status: string; statusUrl: string });
    expect(pending).toMatchObject({ status: 'pending' });
    expect(slow.stderr).toContain(`Still processing; check with \`sps media:get ${pending.id}\``);
    expect((stdoutJson(await sps('media:get', pending.id)) as Media)).toMatchObject({ id: pending.id, status: 'pending' });
  });

  it('media:get of an unknown id shows the server\'s 404', async () => {
    const run = await sps('media:get', '000000000000000000000000');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: .*\(not_found, HTTP 404\)$/m);
  });

  it('video:generate follows the generation with a progress bar on stderr and prints the ready video', async () => {
    const run = await sps('video:generate', '--type', 'slides', '--output', 'vertical', '--params', '{"text":"Tea."}');
    const video = stdoutJson(run) as Media & { width: number; height: number };
    expect(video).toMatchObject({ status: 'ready', mimeType: 'video/mp4', videoCodec: 'h264', width: 1080 });
    expect(run.stderr).toContain(`Generating video ${video.id} (stop waiting at any time`);
    const bar = run.stderr.split('\n').filter((line) => line.startsWith('Generating ['));
    expect(bar.length).toBeGreaterThanOrEqual(2);
    expect(bar.at(-1)).toMatch(/\] 100% done$/);
    const percents = bar.map((line) => Number(/(?<!\d)(\d+)%/.exec(line)?.[1]));
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
  });

  it('video:generate --no-wait prints the pending media; refusals exit 1; a bad --output fails locally', async () => {
    const params = '{"text": "Hi."}';
    const args = ['--type', 'slides', '--output', 'horizontal', '--params', params, '--no-wait'];
    const pending = await sps('video:generate', ...args);
    const statusUrl = expect.stringContaining('/public/v1/media/') as unknown;
    expect(stdoutJson(pending)).toMatchObject({ status: 'pending', statusUrl });
    expect(pending.stderr).toMatch(/^Still generating; check with `sps media:get [0-9a-f]{24}`\.$/m);
    const run = await sps('video:generate', '--type', 'slideshow', '--output', 'vertical', '--params', '{"prompt": "teaser"}');
    expect(run.code).toBe(1);
    const refusal = 'Error: there is no video type "slideshow"; the types are slides, ai-slides '
      + '(unknown_video_type, HTTP 400)';
    expect(run.stderr.split('\n')).toContain(refusal);
    const wrong = await sps('video:generate', '--type', 'slideshow', '--output', 'square');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Allowed choices are vertical, horizontal/);
  });
});
