/** How a video's captions and plain backgrounds look; one is picked per video with `style`. */
export interface CaptionStyle {
  id: string;
  name: string;
  description: string;
  /** Colours as ffmpeg reads them (0xRRGGBB, or a name), with @alpha where it applies. */
  background: string;
  fontColor: string;
  /** A box behind the text, for captions over images; null draws an outline instead. */
  boxColor: string | null;
  borderColor: string;
  /** Font size as a share of the frame's width, so both outputs read alike. */
  fontShare: number;
}

export const captionStyles: readonly CaptionStyle[] = [
  {
    id: 'classic',
    name: 'Classic',
    description: 'White text on a dark blue background, boxed over images',
    background: '0x1d3557',
    fontColor: 'white',
    boxColor: 'black@0.55',
    borderColor: 'black',
    fontShare: 0.058,
  },
  {
    id: 'bold',
    name: 'Bold',
    description: 'Large yellow text with a black outline on charcoal',
    background: '0x222222',
    fontColor: '0xffd60a',
    boxColor: null,
    borderColor: 'black',
    fontShare: 0.072,
  },
  {
    id: 'minimal',
    name: 'Minimal',
    description: 'Dark text on an off-white background, on a light box over images',
    background: '0xf1faee',
    fontColor: '0x1d3557',
    boxColor: 'white@0.75',
    borderColor: 'white',
    fontShare: 0.05,
  },
];

export const captionStyleIds = captionStyles.map((style) => style.id) as [string, ...string[]];

export const defaultCaptionStyle = 'classic';

export function captionStyle(id: string): CaptionStyle {
  const style = captionStyles.find((candidate) => candidate.id === id);
  if (style === undefined) throw new Error(`unknown caption style ${JSON.stringify(id)}`);
  return style;
}
