import { PassThrough, type Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { z } from 'zod';
import ffmpeg from 'fluent-ffmpeg';
import {
  commandExists, isMissingCommand, MediaToolFailure, MediaToolMissing, mediaToolsOnPath, MediaToolTimeout, runMediaTool,
  type MediaToolCommands,
} from './media-tool.ts';

/** What SPS keeps of ffprobe's answer. */
export interface MediaProbe {
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  videoCodec: string | null;
  /** e.g. "Main", "High", "Constrained Baseline" for H.264. */
  videoProfile: string | null;
  audioCodec: string | null;
  frameRate: number | null;
  bitRate: number | null;
}

/** The part of `ffprobe -print_format json -show_format -show_streams` SPS reads; the rest is ignored. */
const ffprobeOutput = z.object({
  streams: z.array(z.object({
    codec_type: z.string().optional(),
    codec_name: z.string().optional(),
    profile: z.unknown().optional(),
    width: z.number().optional(),
    height: z.number().optional(),
    duration: z.string().optional(),
    avg_frame_rate: z.string().optional(),
    r_frame_rate: z.string().optional(),
  })).default([]),
  format: z.object({ duration: z.string().optional(), bit_rate: z.string().optional() }).default({}),
});

function positive(value: unknown): number | null {
  const parsed = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(parsed) && parsed > 0 ? parsed : null;
}

/** "30000/1001" → 29.97 */
function rate(value: string | undefined): number | null {
  if (value === undefined) return null;
  const [numerator, denominator] = value.split('/').map(Number);
  if (numerator === undefined || !Number.isFinite(numerator) || numerator <= 0) return null;
  const result = denominator === undefined ? numerator : numerator / denominator;
  return Number.isFinite(result) ? Math.round(result * 1000) / 1000 : null;
}

/**
 * Runs ffprobe once on a path or URL and keeps the fields SPS stores. Fails with
 * MediaToolTimeout past `timeoutMs` (the process is killed) and MediaToolFailure when ffprobe
 * cannot read the input.
 */
export async function probeMedia(
  input: string,
  options: { timeoutMs: number; tools?: MediaToolCommands },
): Promise<MediaProbe> {
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', input];
  const run = runMediaTool('ffprobe', args, options.timeoutMs, options.tools);
  const [output] = await Promise.all([text(run.stdout), run.exited]);
  let parsed: z.infer<typeof ffprobeOutput>;
  try {
    parsed = ffprobeOutput.parse(JSON.parse(output));
  } catch (error) {
    throw new MediaToolFailure('ffprobe', 'its output could not be read', { cause: error });
  }
  const video = parsed.streams.find((stream) => stream.codec_type === 'video');
  const audio = parsed.streams.find((stream) => stream.codec_type === 'audio');
  const profile = video?.profile;
  return {
    width: positive(video?.width),
    height: positive(video?.height),
    durationSeconds: positive(parsed.format.duration) ?? positive(video?.duration),
    videoCodec: video?.codec_name ?? null,
    videoProfile: typeof profile === 'string' && profile !== 'unknown' ? profile : null,
    audioCodec: audio?.codec_name ?? null,
    frameRate: rate(video?.avg_frame_rate) ?? rate(video?.r_frame_rate),
    bitRate: positive(parsed.format.bit_rate),
  };
}

/**
 * One JPEG frame of a video (at `atSeconds`, clamped by the caller to the duration) as a stream,
 * for the media's thumbnail. The stream fails with MediaToolTimeout when ffmpeg runs past
 * `timeoutMs`, and with MediaToolFailure when it cannot make the frame. fluent-ffmpeg's own
 * `timeout` sends SIGTERM, which ffmpeg blocked opening its input never acts on: SIGKILL here.
 */
export function posterFrame(
  input: string,
  atSeconds: number,
  timeoutMs: number,
  tools: MediaToolCommands = mediaToolsOnPath,
): Readable {
  const output = new PassThrough();
  if (!commandExists(tools.ffmpeg)) {
    process.nextTick(() => output.destroy(new MediaToolMissing('ffmpeg', tools.ffmpeg)));
    return output;
  }
  const command = ffmpeg(input)
    .setFfmpegPath(tools.ffmpeg)
    // Only errors on stderr: they become the failure's message.
    .inputOptions(['-v', 'error'])
    .seekInput(Math.max(0, atSeconds))
    .outputOptions(['-frames:v 1', '-q:v 3'])
    .noAudio()
    .format('image2')
    .videoCodec('mjpeg');
  let running = false;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    if (running) command.kill('SIGKILL');
  }, timeoutMs);
  command.on('start', () => {
    running = true;
    if (timedOut) command.kill('SIGKILL');
  });
  command.on('error', (error: Error, _stdout: unknown, stderr: unknown) => {
    clearTimeout(timer);
    const said = typeof stderr === 'string' ? stderr.trim().slice(-2048) : '';
    let failure: Error;
    if (timedOut) failure = new MediaToolTimeout('ffmpeg', timeoutMs);
    else if (isMissingCommand(error)) failure = new MediaToolMissing('ffmpeg', tools.ffmpeg, { cause: error });
    else failure = new MediaToolFailure('ffmpeg', said === '' ? error.message : said, { cause: error });
    output.destroy(failure);
  });
  // The frame is only good once ffmpeg has exited cleanly, so the stream ends after the exit.
  command.on('end', () => {
    clearTimeout(timer);
    output.end();
  });
  command.pipe(output, { end: false });
  return output;
}
