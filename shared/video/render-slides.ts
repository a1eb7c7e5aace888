import { writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { runMediaTool, type MediaToolCommands } from '../media/media-tool.ts';
import { renderedSeconds, slidesArguments, slidesFilterGraph, type SlidesRender } from './slides-command.ts';

export interface RenderOptions {
  tools: MediaToolCommands;
  /** ffmpeg is killed at this limit (VIDEO_FFMPEG_TIMEOUT_MS) and the render fails with MediaToolTimeout. */
  timeoutMs: number;
  /** Share of the video encoded so far, from 0 to 1, as ffmpeg reports it (about twice a second). */
  onProgress(fraction: number): void;
}

/**
 * Encodes the slideshow with one ffmpeg run. Fails as the media tools fail: MediaToolTimeout,
 * MediaToolFailure with ffmpeg's own message, MediaToolMissing.
 */
export async function renderSlides(render: SlidesRender, options: RenderOptions): Promise<void> {
  await writeFile(render.filterGraphFile, slidesFilterGraph(render));
  const totalSeconds = renderedSeconds(render);
  const run = runMediaTool('ffmpeg', slidesArguments(render), options.timeoutMs, options.tools);
  const lines = createInterface({ input: run.stdout });
  lines.on('line', (line) => {
    // `-progress` writes key=value blocks; out_time_us is how far the output has got (N/A at first).
    const encoded = /^out_time_us=(\d+)$/.exec(line)?.[1];
    if (encoded === undefined || totalSeconds <= 0) return;
    options.onProgress(Math.min(1, Number(encoded) / 1e6 / totalSeconds));
  });
  try {
    await run.exited;
  } finally {
    lines.close();
  }
}
