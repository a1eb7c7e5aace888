import type { CaptionStyle } from './caption-styles.ts';

export type VideoOutput = 'vertical' | 'horizontal';

export interface FrameSize {
  width: number;
  height: number;
}

/** The spec's recommended sizes: portrait for short-form platforms, landscape for the rest. */
export const frameSizes: Record<VideoOutput, FrameSize> = {
  vertical: { width: 1080, height: 1920 },
  horizontal: { width: 1920, height: 1080 },
};

export const videoFrameRate = 30;

/** One scene as ffmpeg takes it: files the worker wrote, and how long it lasts. */
export interface SceneFiles {
  seconds: number;
  /** The caption, already wrapped into lines, as a UTF-8 text file. */
  captionFile: string;
  /** A still image behind the caption; null for the style's plain background. */
  imageFile: string | null;
  /** The narration, any audio ffmpeg reads. */
  narrationFile: string;
}

export interface SlidesRender {
  scenes: readonly SceneFiles[];
  frame: FrameSize;
  style: CaptionStyle;
  fontFile: string;
  /** The video is cut here whatever its scenes add up to. */
  maxSeconds: number;
  /** Where the filter graph is written (it is passed as a file, so no command line grows with the text). */
  filterGraphFile: string;
  outputFile: string;
}

/** Share of the frame's width a caption line may take. */
const lineWidthShare = 0.86;
/** DejaVu Sans Bold's average advance, as a share of the font size. */
const averageGlyphWidth = 0.62;

/**
 * A value inside a filter's option list, escaped for both levels ffmpeg parses: the option list
 * (`:` separates, `'` quotes), then the graph (`[`, `]`, `,`, `;` structure it).
 */
export function filterOptionValue(value: string): string {
  const inOptionList = value.replace(/[\\':]/g, (character) => `\\${character}`);
  return inOptionList.replace(/[\\'[\],;]/g, (character) => `\\${character}`);
}

/** Caption font size: a share of the short side, so vertical and horizontal captions match. */
export function captionFontSize(frame: FrameSize, style: CaptionStyle): number {
  return Math.round(Math.min(frame.width, frame.height) * style.fontShare);
}

/** How many characters fit on one caption line of this frame in this style. */
export function captionLineChars(frame: FrameSize, style: CaptionStyle): number {
  return Math.floor((frame.width * lineWidthShare) / (captionFontSize(frame, style) * averageGlyphWidth));
}

function drawCaption(render: SlidesRender, scene: SceneFiles): string {
  const { frame, style } = render;
  const fontSize = captionFontSize(frame, style);
  const decoration = style.boxColor === null
    ? [`borderw=${Math.max(2, Math.round(fontSize / 14))}`, `bordercolor=${style.borderColor}`]
    : ['box=1', `boxcolor=${style.boxColor}`, `boxborderw=${Math.round(fontSize / 3)}`];
  // Over an image the caption sits in the lower part; on a plain background it is centred.
  const y = scene.imageFile === null ? '(h-text_h)/2' : 'h-text_h-h*0.1';
  const options = [
    `fontfile=${filterOptionValue(render.fontFile)}`,
    `textfile=${filterOptionValue(scene.captionFile)}`,
    // The caption is the user's text: never read %{...} in it as an expression.
    'expansion=none',
    `fontcolor=${style.fontColor}`,
    `fontsize=${fontSize}`,
    `line_spacing=${Math.round(fontSize / 4)}`,
    ...decoration,
    'x=(w-text_w)/2',
    `y=${y}`,
  ];
  return `drawtext=${options.join(':')}`;
}

/** Seconds as ffmpeg reads them, to the millisecond. */
const seconds = (value: number): string => value.toFixed(3);

/**
 * The filter graph: each scene's picture fitted to the frame with its caption drawn on it, its
 * narration padded with silence to the scene's length, and all of them joined in order.
 */
export function slidesFilterGraph(render: SlidesRender): string {
  const { frame, style, scenes } = render;
  const size = `${frame.width}:${frame.height}`;
  const parts = scenes.map((scene, index) => {
    const audioInput = scenes.length + index;
    const video = [
      `[${index}:v]scale=${size}:force_original_aspect_ratio=decrease`,
      `pad=${size}:(ow-iw)/2:(oh-ih)/2:color=${style.background}`,
      'setsar=1', `fps=${videoFrameRate}`, 'format=yuv420p',
      `trim=duration=${seconds(scene.seconds)}`, 'setpts=PTS-STARTPTS',
      drawCaption(render, scene),
    ].join(',');
    const audio = [
      `[${audioInput}:a]aresample=44100`, 'aformat=sample_fmts=fltp:channel_layouts=stereo',
      `apad=whole_dur=${seconds(scene.seconds)}`, `atrim=duration=${seconds(scene.seconds)}`, 'asetpts=PTS-STARTPTS',
    ].join(',');
    return `${video}[v${index}];\n${audio}[a${index}];`;
  });
  const joined = scenes.map((_scene, index) => `[v${index}][a${index}]`).join('');
  return `${parts.join('\n')}\n${joined}concat=n=${scenes.length}:v=1:a=1[v][a]\n`;
}

/** The video's length: its scenes, cut at the cap. */
export function renderedSeconds(render: Pick<SlidesRender, 'scenes' | 'maxSeconds'>): number {
  const total = render.scenes.reduce((sum, scene) => sum + scene.seconds, 0);
  return Math.min(total, render.maxSeconds);
}

/**
 * ffmpeg's arguments for the whole video: MP4 with H.264 Main at 30 fps and AAC, as every video
 * platform takes it, the moov atom first so players start before the end has arrived, and
 * progress as key=value lines on stdout.
 */
export function slidesArguments(render: SlidesRender): string[] {
  const { frame, style, scenes } = render;
  const pictures = scenes.flatMap((scene) => (scene.imageFile === null
    ? ['-f', 'lavfi', '-t', seconds(scene.seconds), '-i',
      `color=c=${style.background}:s=${frame.width}x${frame.height}:r=${videoFrameRate}`]
    : ['-loop', '1', '-framerate', String(videoFrameRate), '-t', seconds(scene.seconds), '-i', scene.imageFile]));
  const narrations = scenes.flatMap((scene) => ['-i', scene.narrationFile]);
  return [
    '-v', 'error', '-y', '-nostdin',
    ...pictures,
    ...narrations,
    '-filter_complex_script', render.filterGraphFile,
    '-map', '[v]', '-map', '[a]',
    '-c:v', 'libx264', '-profile:v', 'main', '-preset', 'veryfast', '-crf', '23',
    '-pix_fmt', 'yuv420p', '-r', String(videoFrameRate), '-g', String(videoFrameRate * 2),
    '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '44100',
    '-movflags', '+faststart',
    '-t', seconds(renderedSeconds(render)),
    '-progress', 'pipe:1', '-nostats',
    render.outputFile,
  ];
}
