import { PassThrough, type Readable } from 'node:stream';
import ffmpeg from 'fluent-ffmpeg';

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

function number(value: unknown): number | null {
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

/** Runs ffprobe once on a path or URL (through fluent-ffmpeg) and keeps the fields SPS stores. */
export function probeMedia(input: string): Promise<MediaProbe> {
  return new Promise((resolve, reject) => {
    ffmpeg.ffprobe(input, ['-v', 'error'], (error: unknown, data) => {
      if (error !== null && error !== undefined) {
        reject(error instanceof Error ? error : new Error(`ffprobe failed: ${JSON.stringify(error)}`));
        return;
      }
      const video = data.streams.find((stream) => stream.codec_type === 'video');
      const audio = data.streams.find((stream) => stream.codec_type === 'audio');
      const profile: unknown = video?.profile;
      resolve({
        width: number(video?.width),
        height: number(video?.height),
        durationSeconds: number(data.format.duration) ?? number(video?.duration),
        videoCodec: video?.codec_name ?? null,
        videoProfile: typeof profile === 'string' && profile !== 'unknown' ? profile : null,
        audioCodec: audio?.codec_name ?? null,
        frameRate: rate(video?.avg_frame_rate) ?? rate(video?.r_frame_rate),
        bitRate: number(data.format.bit_rate),
      });
    });
  });
}

/**
 * One JPEG frame of a video (at `atSeconds`, clamped by the caller to the duration) as a stream,
 * for the media's thumbnail. ffmpeg is stopped after `timeoutSeconds`.
 */
export function posterFrame(input: string, atSeconds: number, timeoutSeconds: number): Readable {
  const output = new PassThrough();
  const command = ffmpeg(input, { timeout: timeoutSeconds })
    .seekInput(Math.max(0, atSeconds))
    .outputOptions(['-frames:v 1', '-q:v 3'])
    .noAudio()
    .format('image2')
    .videoCodec('mjpeg');
  // fluent-ffmpeg reports failures on the command, not on the piped stream: carry them over.
  command.on('error', (error: Error) => { output.destroy(error); });
  command.pipe(output, { end: true });
  return output;
}
